package checks

import (
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// runtimeTruth follows what the kubelets' runtimes really run, from the
// spoke events and the kernel's faults: per pod UID the nodes where a
// container of it runs and the kubelet's last readiness report, and which
// kubelet hosts are up (its FaultWindows). A crash (or torn write, or wipe) of a host stops
// every container there without a ContainerStop and forgets its
// readiness; a paused host is frozen, so what it runs does not run until
// it resumes. Kernel faults name hosts by id: the node of a host is learned
// from the spoke events its kubelet emits (a kubelet's host name is its
// node name), and a host's faults are kept by id, so a fault on a host
// whose kubelet has not spoken yet still counts once it does.
type runtimeTruth struct {
	names  map[sim.HostID]string // host -> node, learned
	hosts  map[string]sim.HostID // node -> host
	faults FaultWindows
	pods   map[string]*podTruth
	onNode map[string]map[string]bool // node -> UIDs with a container there
	revs   appliedRevs
}

// podTruth is the runtime truth of one pod UID.
type podTruth struct {
	uid, key, owner string
	// apiOwner: owner is the controller etcd last committed for the pod
	// (observeCommitted), which a ContainerStart's owner (the kubelet's
	// view when the pod's sandbox was made) no longer overrides.
	apiOwner  bool
	running   map[string]map[string]bool // node -> running containers
	ready     bool                       // the kubelet's last PodReady
	readyNode string                     // the node that reported it
}

// runningPod is a pod with a container running on an up node.
type runningPod struct {
	pod  *podTruth
	node string
}

func newRuntimeTruth() *runtimeTruth {
	return &runtimeTruth{names: map[sim.HostID]string{}, hosts: map[string]sim.HostID{},
		pods: map[string]*podTruth{}, onNode: map[string]map[string]bool{}}
}

// learn notes that node runs on host id.
func (t *runtimeTruth) learn(node string, id sim.HostID) {
	if id == sim.NoHost || node == "" {
		return
	}
	t.names[id], t.hosts[node] = node, id
}

func (t *runtimeTruth) pod(uid string) *podTruth {
	return getOrNew(t.pods, uid, func() *podTruth { return &podTruth{uid: uid, running: map[string]map[string]bool{}} })
}

// podsOn returns the pods with a container on node, by UID.
func (t *runtimeTruth) podsOn(node string) []*podTruth {
	var out []*podTruth
	for _, uid := range sim.SortedKeys(t.onNode[node]) {
		out = append(out, t.pods[uid])
	}
	return out
}

// observe applies e and returns the pods whose truth it may have changed.
func (t *runtimeTruth) observe(e *sim.Event) []*podTruth {
	if e.Kind == sim.KindFault {
		t.faults.Observe(e)
		return t.observeFault(e)
	}
	switch d := e.NodeData().(type) {
	case *spoketrace.ContainerStart:
		t.learn(d.Node, e.Host)
		p := t.pod(d.UID)
		p.key = d.Pod
		if d.Owner != "" && !p.apiOwner {
			p.owner = d.Owner
		}
		cs := p.running[d.Node]
		if cs == nil {
			cs = map[string]bool{}
			p.running[d.Node] = cs
		}
		cs[d.Container] = true
		if t.onNode[d.Node] == nil {
			t.onNode[d.Node] = map[string]bool{}
		}
		t.onNode[d.Node][d.UID] = true
		return []*podTruth{p}
	case *spoketrace.ContainerStop:
		t.learn(d.Node, e.Host)
		p := t.pod(d.UID)
		delete(p.running[d.Node], d.Container)
		if len(p.running[d.Node]) == 0 {
			delete(p.running, d.Node)
			delete(t.onNode[d.Node], d.UID)
		}
		return []*podTruth{p}
	case *spoketrace.PodReady:
		t.learn(d.Node, e.Host)
		p := t.pod(d.UID)
		p.key = d.Pod
		p.ready, p.readyNode = d.Ready, d.Node
		return []*podTruth{p}
	case *spoketrace.NodeHeartbeat:
		t.learn(d.Node, e.Host)
	case *etcdtrace.Apply:
		return t.observeCommitted(d)
	}
	return nil
}

// observeCommitted takes each committed pod's controller from etcd, the
// ground truth of who owns it, in the order etcd committed the writes: a
// write whose answer the API server never got (an etcd timeout on a flaky
// link) changed the owner all the same, and an API server's
// apitrace.Owners event can come after a later write's (its answer was
// slow): overlapping-owners at 3 members, seed 155, with apiserver-2's
// links flaky, saw an operator's relabel, committed before the
// ReplicaSet's release of the pod, reported after it, and counted the
// released pod as the ReplicaSet's again.
func (t *runtimeTruth) observeCommitted(d *etcdtrace.Apply) []*podTruth {
	if !t.revs.fresh(d) {
		return nil
	}
	var changed []*podTruth
	for i := range d.Changes {
		ch := &d.Changes[i]
		if ch.Type != etcdtrace.ChangePut || !strings.HasPrefix(ch.Key, podsPrefix) {
			continue
		}
		uid := firstUID(ch.Value)
		if uid == "" {
			continue
		}
		p := t.pod(uid)
		p.key = strings.TrimPrefix(ch.Key, podsPrefix)
		ctl := controllerUID(ch.Value)
		p.apiOwner = true
		if p.owner != ctl {
			p.owner = ctl
			changed = append(changed, p)
		}
	}
	return changed
}

// firstUID is the first uid in a stored object's JSON: its own
// (metadata.uid comes before any owner reference's).
func firstUID(value string) string {
	_, rest, ok := strings.Cut(value, `"uid":"`)
	if !ok {
		return ""
	}
	uid, _, ok := strings.Cut(rest, `"`)
	if !ok {
		return ""
	}
	return uid
}

// observeFault finds the pods a kernel fault event on a host touched
// (t.faults has taken it in): a crash stops them and forgets their
// readiness, a pause or resume freezes or thaws them.
func (t *runtimeTruth) observeFault(e *sim.Event) []*podTruth {
	if e.Host == sim.NoHost {
		return nil
	}
	node, known := t.names[e.Host]
	if !known {
		return nil
	}
	switch {
	case sim.FaultKind(e.Name).CrashesHost():
		pods := t.podsOn(node)
		for _, p := range pods {
			delete(p.running, node)
			if p.readyNode == node {
				p.ready = false
			}
		}
		delete(t.onNode, node)
		return pods
	case e.Name == string(sim.FaultPause), e.Name == sim.EventResume:
		return t.podsOn(node)
	}
	return nil
}

// nodeUp reports whether node's host is up and not paused (a node whose
// host is not known yet is taken as up: nothing of it runs anyway).
func (t *runtimeTruth) nodeUp(node string) bool {
	id, ok := t.hosts[node]
	return !ok || !t.faults.Down(id)
}

// runsOn reports whether a container of pod uid runs on node.
func (t *runtimeTruth) runsOn(uid, node string) bool {
	p := t.pods[uid]
	return p != nil && len(p.running[node]) > 0
}

// readyOn reports whether node's kubelet last reported pod uid ready.
func (t *runtimeTruth) readyOn(uid, node string) bool {
	p := t.pods[uid]
	return p != nil && p.ready && p.readyNode == node
}

// serving reports whether p runs and is ready: a container of it runs on
// an up node whose kubelet last reported it ready.
func (t *runtimeTruth) serving(p *podTruth) bool {
	return p.ready && len(p.running[p.readyNode]) > 0 && t.nodeUp(p.readyNode)
}

// copies counts the up nodes where a container of p runs.
func (t *runtimeTruth) copies(p *podTruth) int {
	n := 0
	// determinism: a count, whatever the order.
	for node := range p.running {
		if t.nodeUp(node) {
			n++
		}
	}
	return n
}

// running lists every pod with a container running on an up node, by UID
// then node.
func (t *runtimeTruth) running() []runningPod {
	var out []runningPod
	for _, uid := range sim.SortedKeys(t.pods) {
		p := t.pods[uid]
		for _, node := range sim.SortedKeys(p.running) {
			if t.nodeUp(node) {
				out = append(out, runningPod{p, node})
			}
		}
	}
	return out
}
