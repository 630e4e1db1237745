package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/nodes/spoketrace"
	"github.com/kubesim/kubesim/sim"
)

// ConvergenceOptions configure the convergence check.
type ConvergenceOptions struct {
	// FaultEnd is when the last fault healed: converge_s is measured from
	// here.
	FaultEnd sim.Time
}

// Convergence checks that, once the faults healed and the cluster settled,
// desired equals actual, judged on the last spoketrace.ClusterState (the
// API's quorum view near the end of the run) against the runtime truth at
// that moment (what the kubelets' runtimes really run, and which hosts are
// up: a crashed or paused host runs nothing):
//   - every ReplicaSet not being deleted has exactly spec.replicas active
//     pods (not deleting, not terminal), and exactly spec.replicas pods that
//     are phase Running and Ready in the API, bound to a node that exists,
//     whose Ready is True and whose host is up, where a container of the pod
//     really runs and whose kubelet last reported the pod ready;
//   - every Deployment's rollout is complete: observedGeneration >=
//     generation, updated == available == status replicas == spec.replicas,
//     and the Progressing reason is NewReplicaSetAvailable;
//   - no pod is bound to a node that does not exist;
//   - the API and the runtimes agree: a pod the API says Running on node N
//     has a container running there, and a container running on an up host
//     N belongs to a pod the API binds to N. Nodes whose Ready is not True
//     are exempt: the control plane knows it lost them and cannot learn
//     what they run.
//
// No ClusterState at all is a failure. It measures converge_s: the seconds
// from FaultEnd to the earliest time after which, for every ReplicaSet of
// the final state, the number of its pods running and ready (runtime truth)
// stayed equal to its final spec.replicas until the end (0 when that held
// before FaultEnd, -1 when it never did).
type Convergence struct {
	opts    ConvergenceOptions
	rt      *runtimeTruth
	owners  map[string]*ownerServing // owner UID -> its pods running and ready
	serving map[string]bool          // pod UID -> counted in its owner's serving
	state   *spoketrace.ClusterState // the last one
	stateAt sim.Time
	stateSq uint64
	verdict []string // offenses of the last state, judged when it came
	done    bool
	measure float64
}

// ownerServing is how many pods of an owner run and are ready, and since
// when that number has not changed: the compact time series converge_s
// needs (only its last change matters).
type ownerServing struct {
	n     int
	since sim.Time
}

// NewConvergence returns the "convergence" check.
func NewConvergence(opts ConvergenceOptions) *Convergence {
	return &Convergence{opts: opts, rt: newRuntimeTruth(), owners: map[string]*ownerServing{},
		serving: map[string]bool{}}
}

// Name implements Check.
func (c *Convergence) Name() string { return "convergence" }

// Observe implements Check.
func (c *Convergence) Observe(e *sim.Event) {
	if d, ok := e.Data.(*spoketrace.ClusterState); ok {
		c.state = copyClusterState(d)
		c.stateAt, c.stateSq = e.At, e.Seq
		c.verdict = c.judgeState(c.state)
		return
	}
	for _, p := range c.rt.observe(e) {
		c.syncServing(e.At, p)
	}
}

// syncServing recounts pod p in its owner's serving pods.
func (c *Convergence) syncServing(at sim.Time, p *podTruth) {
	if p.owner == "" {
		return
	}
	now := c.rt.serving(p)
	if now == c.serving[p.uid] {
		return
	}
	o := c.owners[p.owner]
	if o == nil {
		o = &ownerServing{}
		c.owners[p.owner] = o
	}
	if now {
		o.n++
		c.serving[p.uid] = true
	} else {
		o.n--
		delete(c.serving, p.uid)
	}
	o.since = at
}

// copyClusterState copies d, which is valid only during Observe.
func copyClusterState(d *spoketrace.ClusterState) *spoketrace.ClusterState {
	cp := *d
	cp.Pods = append([]spoketrace.PodState(nil), d.Pods...)
	cp.Nodes = append([]spoketrace.NodeState(nil), d.Nodes...)
	cp.ReplicaSets = append([]spoketrace.ReplicaSetState(nil), d.ReplicaSets...)
	cp.Deployments = append([]spoketrace.DeploymentState(nil), d.Deployments...)
	return &cp
}

// judgeState returns the offenses of cs against the runtime truth now.
func (c *Convergence) judgeState(cs *spoketrace.ClusterState) []string {
	var out []string
	nodes := map[string]spoketrace.NodeState{}
	for _, n := range cs.Nodes {
		nodes[n.Name] = n
	}
	byOwner := map[string][]spoketrace.PodState{}
	byUID := map[string]spoketrace.PodState{}
	for _, p := range cs.Pods {
		byOwner[p.Owner] = append(byOwner[p.Owner], p)
		byUID[p.UID] = p
	}
	for _, rs := range cs.ReplicaSets {
		if !rs.Deleting {
			out = append(out, c.judgeReplicaSet(rs, byOwner[rs.UID], nodes)...)
		}
	}
	for _, d := range cs.Deployments {
		if why := deploymentIncomplete(d); why != "" {
			out = append(out, fmt.Sprintf("deployment %s (spec.replicas %d) is not complete: %s", d.Key, d.Replicas, why))
		}
	}
	for _, p := range cs.Pods {
		n, exists := nodes[p.Node]
		switch {
		case p.Node == "":
		case !exists:
			out = append(out, fmt.Sprintf("pod %s is bound to node %s, which does not exist", p.Key, p.Node))
		case p.Phase == "Running" && n.Ready == "True" && !c.rt.runsOn(p.UID, p.Node):
			out = append(out, fmt.Sprintf("pod %s is Running on node %s in the API, but no container of it runs there", p.Key, p.Node))
		}
	}
	for _, r := range c.rt.running() {
		if n, ok := nodes[r.node]; ok && n.Ready != "True" {
			continue
		}
		switch p, ok := byUID[r.pod.uid]; {
		case !ok:
			out = append(out, fmt.Sprintf("a container of pod %s (uid %s) runs on node %s, but the API has no such pod", r.pod.key, r.pod.uid, r.node))
		case p.Node != r.node:
			out = append(out, fmt.Sprintf("a container of pod %s runs on node %s, but the API binds it to %q", p.Key, r.node, p.Node))
		}
	}
	return out
}

// judgeReplicaSet counts rs's pods and says how it falls short or
// overshoots.
func (c *Convergence) judgeReplicaSet(rs spoketrace.ReplicaSetState, pods []spoketrace.PodState, nodes map[string]spoketrace.NodeState) []string {
	good, active := 0, 0
	short := map[string]int{}
	for _, p := range pods {
		if p.Deleting || p.Phase == "Succeeded" || p.Phase == "Failed" {
			continue
		}
		active++
		if why := c.podShortfall(p, nodes); why != "" {
			short[why]++
		} else {
			good++
		}
	}
	if good == rs.Replicas && active == rs.Replicas {
		return nil
	}
	var whys []string
	for _, w := range sim.SortedKeys(short) {
		whys = append(whys, fmt.Sprintf("%d %s", short[w], w))
	}
	s := fmt.Sprintf("replicaset %s wants %d pods: %d run and are ready, of %d active", rs.Key, rs.Replicas, good, active)
	if len(whys) > 0 {
		s += " (" + strings.Join(whys, "; ") + ")"
	}
	return []string{s}
}

// podShortfall says why an active pod does not count as running and ready,
// or "".
func (c *Convergence) podShortfall(p spoketrace.PodState, nodes map[string]spoketrace.NodeState) string {
	n, exists := nodes[p.Node]
	switch {
	case p.Phase != "Running":
		return "in phase " + p.Phase
	case !p.Ready:
		return "not Ready in the API"
	case p.Node == "":
		return "not bound"
	case !exists:
		return "bound to a missing node"
	case n.Ready != "True":
		return "on a node whose Ready is " + n.Ready
	case !c.rt.nodeUp(p.Node):
		return "on a node whose host is down"
	case !c.rt.runsOn(p.UID, p.Node):
		return "with no container running"
	case !c.rt.readyOn(p.UID, p.Node):
		return "not ready per its kubelet"
	}
	return ""
}

// deploymentIncomplete says why d's rollout is not complete, or "".
func deploymentIncomplete(d spoketrace.DeploymentState) string {
	var whys []string
	if d.ObservedGeneration < d.Generation {
		whys = append(whys, fmt.Sprintf("observedGeneration %d < generation %d", d.ObservedGeneration, d.Generation))
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"updated", d.UpdatedReplicas}, {"available", d.AvailableReplicas}, {"status", d.StatusReplicas}} {
		if f.n != d.Replicas {
			whys = append(whys, fmt.Sprintf("%s replicas %d", f.name, f.n))
		}
	}
	if d.Progressing != "NewReplicaSetAvailable" {
		whys = append(whys, fmt.Sprintf("Progressing reason %q, not NewReplicaSetAvailable", d.Progressing))
	}
	return strings.Join(whys, ", ")
}

// finish computes the verdict's inputs and converge_s once.
func (c *Convergence) finish() {
	if c.done {
		return
	}
	c.done = true
	c.measure = -1
	if c.state == nil {
		return
	}
	last := c.opts.FaultEnd
	for _, rs := range c.state.ReplicaSets {
		if rs.Deleting {
			continue
		}
		n, since := 0, sim.Time(0)
		if o := c.owners[rs.UID]; o != nil {
			n, since = o.n, o.since
		}
		if n != rs.Replicas {
			return
		}
		last = max(last, since)
	}
	c.measure = last.Sub(c.opts.FaultEnd).Seconds()
}

// Finish implements Check.
func (c *Convergence) Finish() Result {
	c.finish()
	if c.state == nil {
		return Result{Name: c.Name(), OK: false, Detail: "no cluster state was reported"}
	}
	var rec Recorder
	ev := &sim.Event{At: c.stateAt, Seq: c.stateSq}
	for _, v := range c.verdict {
		rec.Add(ev, "%s", v)
	}
	conv := "never converged in the runtime"
	if c.measure >= 0 {
		conv = fmt.Sprintf("converged %.1f s after the faults ended", c.measure)
	}
	return rec.Result(c.Name(), fmt.Sprintf("cluster state at %v (resourceVersion %s): %d replicaset(s), %d deployment(s), %d pod(s) on %d node(s) agree with the runtime; %s",
		c.stateAt, c.state.RV, len(c.state.ReplicaSets), len(c.state.Deployments), len(c.state.Pods), len(c.state.Nodes), conv))
}

// Measures implements Measurer: converge_s.
func (c *Convergence) Measures() map[string]float64 {
	c.finish()
	return map[string]float64{"converge_s": c.measure}
}

var (
	_ Check    = (*Convergence)(nil)
	_ Measurer = (*Convergence)(nil)
)

// runtimeTruth follows what the kubelets' runtimes really run, from the
// spoke events and the kernel's faults: per pod UID the nodes where a
// container of it runs and the kubelet's last readiness report, and which
// kubelet hosts are up. A crash (or torn write, or wipe) of a host stops
// every container there without a ContainerStop and forgets its
// readiness; a paused host is frozen, so what it runs does not run until
// it resumes. Kernel faults name hosts by id: the node of a host is learned
// from the spoke events its kubelet emits (a kubelet's host name is its
// node name), and a host's faults are kept by id, so a fault on a host
// whose kubelet has not spoken yet still counts once it does.
type runtimeTruth struct {
	names   map[sim.HostID]string // host -> node, learned
	hosts   map[string]sim.HostID // node -> host
	crashed map[sim.HostID]bool
	paused  map[sim.HostID]bool
	pods    map[string]*podTruth
	onNode  map[string]map[string]bool // node -> UIDs with a container there
}

// podTruth is the runtime truth of one pod UID.
type podTruth struct {
	uid, key, owner string
	running         map[string]map[string]bool // node -> running containers
	ready           bool                       // the kubelet's last PodReady
	readyNode       string                     // the node that reported it
}

// runningPod is a pod with a container running on an up node.
type runningPod struct {
	pod  *podTruth
	node string
}

func newRuntimeTruth() *runtimeTruth {
	return &runtimeTruth{names: map[sim.HostID]string{}, hosts: map[string]sim.HostID{},
		crashed: map[sim.HostID]bool{}, paused: map[sim.HostID]bool{}, pods: map[string]*podTruth{},
		onNode: map[string]map[string]bool{}}
}

// learn notes that node runs on host id.
func (t *runtimeTruth) learn(node string, id sim.HostID) {
	if id == sim.NoHost || node == "" {
		return
	}
	t.names[id], t.hosts[node] = node, id
}

func (t *runtimeTruth) pod(uid string) *podTruth {
	p := t.pods[uid]
	if p == nil {
		p = &podTruth{uid: uid, running: map[string]map[string]bool{}}
		t.pods[uid] = p
	}
	return p
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
	switch e.Kind {
	case sim.KindFault:
		return t.observeFault(e)
	case sim.KindNode:
	default:
		return nil
	}
	switch d := e.Data.(type) {
	case *spoketrace.ContainerStart:
		t.learn(d.Node, e.Host)
		p := t.pod(d.UID)
		p.key = d.Pod
		if d.Owner != "" {
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
	}
	return nil
}

// observeFault applies a kernel fault event on a host.
func (t *runtimeTruth) observeFault(e *sim.Event) []*podTruth {
	if e.Host == sim.NoHost {
		return nil
	}
	node, known := t.names[e.Host]
	switch e.Name {
	case string(sim.FaultCrash), string(sim.FaultTorn), string(sim.FaultWipe):
		t.crashed[e.Host] = true
		delete(t.paused, e.Host) // a crash ends a pause: the host restarts running, with no resume
		if !known {
			return nil
		}
		pods := t.podsOn(node)
		for _, p := range pods {
			delete(p.running, node)
			if p.readyNode == node {
				p.ready = false
			}
		}
		delete(t.onNode, node)
		return pods
	case string(sim.FaultRestart):
		delete(t.crashed, e.Host)
	case string(sim.FaultPause), "resume":
		if e.Name == "resume" {
			delete(t.paused, e.Host)
		} else {
			t.paused[e.Host] = true
		}
		if known {
			return t.podsOn(node)
		}
	}
	return nil
}

// nodeUp reports whether node's host is up and not paused (a node whose
// host is not known yet is taken as up: nothing of it runs anyway).
func (t *runtimeTruth) nodeUp(node string) bool {
	id, ok := t.hosts[node]
	return !ok || (!t.crashed[id] && !t.paused[id])
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
