package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The pod garbage collector's settings, as kube-controller-manager's
// (pkg/controller/podgc/gc_controller.go; the flag
// --terminated-pod-gc-threshold).
const (
	// DefaultPodGCQuarantine is quarantineTime: how long a node must be
	// missing before the pods bound to it are deleted.
	DefaultPodGCQuarantine = 40 * time.Second
	// DefaultTerminatedPodThreshold is --terminated-pod-gc-threshold.
	DefaultTerminatedPodThreshold = 12500
	// taintNodeOutOfService is corev1.TaintNodeOutOfService.
	taintNodeOutOfService = "node.kubernetes.io/out-of-service"
)

// ControllerDeletesOptions configure controller-deletes; zero values mean
// the real defaults.
type ControllerDeletesOptions struct {
	// Quarantine is the pod garbage collector's quarantineTime.
	Quarantine time.Duration
	// TerminatedPodThreshold is --terminated-pod-gc-threshold.
	TerminatedPodThreshold int
	// NodeLag is how long a node's readiness and taints may take to reach
	// the collector's informer: a deletion of a terminating pod is
	// justified by a node that was not Ready and out of service at some
	// commit this long before it was sent; default
	// DefaultDoubleRunningRecovery.
	NodeLag time.Duration
}

// ControllerDeletes judges the deletions of two controllers that delete
// what is not their own dependents, each at the moment it was sent
// (spoketrace.LeaderWrite) against the state committed then, and
// reported on its 200 (spoketrace.ControllerDelete):
//   - the pod garbage collector (pkg/controller/podgc) deletes a pod only
//     for one of its passes' reasons: terminated (Succeeded or Failed)
//     while more terminated pods than --terminated-pod-gc-threshold exist
//     (gcTerminated; the pass's earlier deletions count); bound to a Node
//     that has been gone for at least the 40 s quarantine (gcOrphaned);
//     being deleted on a node that is not Ready and carries the
//     node.kubernetes.io/out-of-service taint (gcTerminating); being
//     deleted and never bound (gcUnscheduledTerminating);
//   - the Deployment controller (cleanupDeployment) deletes only a
//     ReplicaSet it controls that has no replicas, by spec or status, while
//     the Deployment keeps more than revisionHistoryLimit old ReplicaSets
//     that are not being deleted (all of its ReplicaSets but the new one);
//   - the taint eviction controller
//     (pkg/controller/tainteviction/taint_eviction.go, processPodOnNode)
//     deletes only a pod bound to a node with NoExecute taints: at once
//     when the pod tolerates one of them not at all, else once the
//     shortest tolerationSeconds of the tolerations it uses (the first
//     that matches each taint; none set: never) has passed since the
//     node's taints began, on the controller's own clock (the host's,
//     drifts included), to within a second (a pod's times are whole
//     seconds). The node's taints are judged as committed at some moment
//     within NodeLag before the deletion was sent, and a stretch of taints
//     begins at the commit that first had one.
//
// The ReplicaSet controller's and the garbage collector's deletions are
// ownership's; when the taint manager's come relative to the node's
// heartbeats, eviction-timing's.
type ControllerDeletes struct {
	opts    ControllerDeletesOptions
	revs    appliedRevs
	now     sim.Time
	pods    map[string]*cdPod     // by key
	nodes   map[string][]cdNode   // by name: versions, oldest first
	rs      map[string]rsVersion  // by key: the latest committed
	rsState map[string]cdRSStatus // by key
	deps    map[string]cdDep      // by UID: the latest committed
	// terminated counts the committed pods that are Succeeded or Failed.
	terminated int
	// sends are the controller managers' deletions sent, by host, then
	// "resource/key": the state committed then.
	sends map[sim.HostID]map[string]cdSend
	// instant counts the pod deletions a host sent at the current time.
	instant   map[sim.HostID]int
	instantAt sim.Time
	clocks    hostClocks
	rec       Recorder
	judged    map[string]int
	unmatched int
}

// cdPod is a committed pod, as the check reads it.
type cdPod struct {
	uid, node  string
	terminated bool
	deleting   bool
	// tolerations are those that may tolerate a NoExecute taint.
	tolerations []model.Toleration
}

// cdNode is a committed version of a Node (exists false: deleted).
type cdNode struct {
	at                 sim.Time
	exists, ready, oos bool
	// noExecute are its NoExecute taints.
	noExecute []model.Taint
}

// cdRSStatus is what the cleanup reads of a ReplicaSet besides rsVersion.
type cdRSStatus struct {
	statusReplicas int32
	deleting       bool
}

// cdDep is a committed Deployment's history limit (-1: none).
type cdDep struct {
	key   string
	limit int32
}

// cdSend is the committed state a deletion was sent against.
type cdSend struct {
	at  sim.Time
	pod cdPod
	// podOK is false when the pod was not committed then.
	podOK bool
	// terminated is the count of terminated pods, less the deletions the
	// same host sent at the same instant before this one (a pass of the
	// collector sends its deletions of terminated pods at once).
	terminated int
	rs         rsVersion
	rsOK       bool
	rsStatus   cdRSStatus
	limit      int32
	limitOK    bool
	siblings   int // ReplicaSets the Deployment controls that are not being deleted
}

// NewControllerDeletes returns the "controller-deletes" check.
func NewControllerDeletes(opts ControllerDeletesOptions) *ControllerDeletes {
	if opts.Quarantine <= 0 {
		opts.Quarantine = DefaultPodGCQuarantine
	}
	if opts.TerminatedPodThreshold <= 0 {
		opts.TerminatedPodThreshold = DefaultTerminatedPodThreshold
	}
	if opts.NodeLag <= 0 {
		opts.NodeLag = DefaultDoubleRunningRecovery
	}
	return &ControllerDeletes{opts: opts, pods: map[string]*cdPod{}, nodes: map[string][]cdNode{}, rs: map[string]rsVersion{},
		rsState: map[string]cdRSStatus{}, deps: map[string]cdDep{}, sends: map[sim.HostID]map[string]cdSend{},
		instant: map[sim.HostID]int{}, judged: map[string]int{}, clocks: newHostClocks()}
}

// Name implements Check.
func (c *ControllerDeletes) Name() string { return "controller-deletes" }

// Observe implements Check.
func (c *ControllerDeletes) Observe(e *sim.Event) {
	c.now = e.At
	c.clocks.observe(e)
	switch d := e.Data.(type) {
	case *etcdtrace.Apply:
		if c.revs.fresh(d) {
			for ch := range registryChanges(d) {
				c.commit(e, ch, d.Rev)
			}
		}
	case *spoketrace.LeaderWrite:
		if d.Component == controllerManagerComponent && d.Verb == "delete" {
			c.send(e, d)
		}
	case *spoketrace.ControllerDelete:
		switch d.Controller {
		case spoketrace.ControllerPodGC, spoketrace.ControllerDeployment, spoketrace.ControllerTaintEviction:
			c.judge(e, d)
		}
	}
}

// commit follows one committed change of a pod, Node, ReplicaSet or
// Deployment.
func (c *ControllerDeletes) commit(e *sim.Event, ch registryChange, rev int64) {
	put := ch.Type == etcdtrace.ChangePut
	switch ch.res {
	case model.ResourcePodsName:
		if old := c.pods[ch.key]; old != nil && old.terminated {
			c.terminated--
		}
		delete(c.pods, ch.key)
		if !put {
			return
		}
		obj, err := model.Decode([]byte(ch.Value))
		if err != nil {
			return
		}
		p, ok := obj.(*model.Pod)
		if !ok {
			return
		}
		ph := p.Status.Phase
		cp := &cdPod{uid: string(p.UID), node: p.Spec.NodeName, terminated: ph == model.PodSucceeded || ph == model.PodFailed,
			deleting: p.DeletionTimestamp != nil}
		for _, t := range p.Spec.Tolerations {
			if t.Effect == "" || t.Effect == model.TaintEffectNoExecute {
				cp.tolerations = append(cp.tolerations, t)
			}
		}
		c.pods[ch.key] = cp
		if cp.terminated {
			c.terminated++
		}
	case model.ResourceNodesName:
		v := cdNode{at: e.At}
		if put {
			if obj, err := model.Decode([]byte(ch.Value)); err == nil {
				if n, ok := obj.(*model.Node); ok {
					v.exists, v.ready = true, model.IsNodeReady(n)
					for _, t := range n.Spec.Taints {
						v.oos = v.oos || t.Key == taintNodeOutOfService
						if t.Effect == model.TaintEffectNoExecute {
							v.noExecute = append(v.noExecute, t)
						}
					}
				}
			}
		}
		c.nodes[ch.key] = append(c.nodes[ch.key], v)
	case model.ResourceReplicaSetsName:
		if !put {
			delete(c.rs, ch.key)
			delete(c.rsState, ch.key)
			return
		}
		v, ok := decodeRSVersion(rev, ch.Value)
		if !ok {
			return
		}
		obj, _ := model.Decode([]byte(ch.Value))
		rs := obj.(*model.ReplicaSet)
		c.rs[ch.key] = v
		c.rsState[ch.key] = cdRSStatus{statusReplicas: rs.Status.Replicas, deleting: rs.DeletionTimestamp != nil}
	case model.ResourceDeploymentsName:
		if !put {
			return
		}
		obj, err := model.Decode([]byte(ch.Value))
		if err != nil {
			return
		}
		if d, ok := obj.(*model.Deployment); ok {
			c.deps[string(d.UID)] = cdDep{key: ch.key, limit: model.Deref(d.Spec.RevisionHistoryLimit, -1)}
		}
	}
}

// send records the committed state a controller manager's deletion was
// sent against.
func (c *ControllerDeletes) send(e *sim.Event, d *spoketrace.LeaderWrite) {
	if e.At != c.instantAt {
		c.instantAt = e.At
		clear(c.instant)
	}
	s := cdSend{at: e.At}
	switch d.Resource {
	case model.ResourcePodsName:
		if p := c.pods[d.Key]; p != nil {
			s.pod, s.podOK = *p, true
		}
		s.terminated = c.terminated - c.instant[e.Host]
		c.instant[e.Host]++
	case model.ResourceReplicaSetsName:
		s.rs, s.rsOK = c.rs[d.Key]
		s.rsStatus = c.rsState[d.Key]
		if dep, ok := c.deps[s.rs.owner]; s.rsOK && ok && dep.limit >= 0 {
			s.limit, s.limitOK = dep.limit, true
			for _, k := range sim.SortedKeys(c.rs) {
				if c.rs[k].owner == s.rs.owner && !c.rsState[k].deleting {
					s.siblings++
				}
			}
		}
	default:
		return
	}
	if c.sends[e.Host] == nil {
		c.sends[e.Host] = map[string]cdSend{}
	}
	c.sends[e.Host][d.Resource+"/"+d.Key] = s
}

// judge judges a deletion the API server acknowledged.
func (c *ControllerDeletes) judge(e *sim.Event, d *spoketrace.ControllerDelete) {
	s, ok := c.sends[e.Host][d.Resource+"/"+d.Key]
	if !ok {
		c.unmatched++
		return
	}
	c.judged[d.Controller]++
	switch d.Controller {
	case spoketrace.ControllerPodGC:
		c.judgePodGC(e, d, s)
	case spoketrace.ControllerDeployment:
		c.judgeCleanup(e, d, s)
	case spoketrace.ControllerTaintEviction:
		c.judgeTaintEviction(e, d, s)
	}
}

// judgePodGC judges a deletion by the pod garbage collector.
func (c *ControllerDeletes) judgePodGC(e *sim.Event, d *spoketrace.ControllerDelete, s cdSend) {
	what := fmt.Sprintf("the pod garbage collector deleted pod %s (%s)", d.Key, d.Reason)
	if !s.podOK || s.pod.uid != d.UID {
		c.rec.Add(e, "%s, which was not committed when the deletion was sent", what)
		return
	}
	p := s.pod
	switch d.Reason {
	case spoketrace.PodGCTerminated:
		switch {
		case !p.terminated:
			c.rec.Add(e, "%s, which was not terminated", what)
		case s.terminated <= c.opts.TerminatedPodThreshold:
			c.rec.Add(e, "%s with %d terminated pod(s) left to collect from, within --terminated-pod-gc-threshold %d", what, s.terminated, c.opts.TerminatedPodThreshold)
		}
	case spoketrace.PodGCOrphaned:
		gone, since := c.nodeGoneSince(p.node, s.at)
		switch {
		case p.node == "":
			c.rec.Add(e, "%s, which was bound to no node", what)
		case !gone:
			c.rec.Add(e, "%s, whose node %s existed when the deletion was sent", what, p.node)
		case s.at.Sub(since) < c.opts.Quarantine:
			c.rec.Add(e, "%s, whose node %s had been gone for %v when the deletion was sent, less than the %v quarantine", what, p.node, s.at.Sub(since), c.opts.Quarantine)
		}
	case spoketrace.PodGCTerminating:
		switch {
		case !p.deleting:
			c.rec.Add(e, "%s, which was not being deleted", what)
		case !c.nodeOutOfService(p.node, s.at):
			c.rec.Add(e, "%s, whose node %s was not both not Ready and tainted %s (at any commit within %v before the deletion)",
				what, p.node, taintNodeOutOfService, c.opts.NodeLag)
		}
	case spoketrace.PodGCUnscheduledTerminating:
		if !p.deleting || p.node != "" {
			c.rec.Add(e, "%s, which was not an unbound pod being deleted (node %q, being deleted %v)", what, p.node, p.deleting)
		}
	default:
		c.rec.Add(e, "%s: not a reason of the collector", what)
	}
}

// nodeGoneSince reports whether node was gone at t, and since when (the
// zero time if it never existed).
func (c *ControllerDeletes) nodeGoneSince(node string, t sim.Time) (bool, sim.Time) {
	exists, since := false, sim.Time(0)
	for _, v := range c.nodes[node] {
		if v.at > t {
			break
		}
		if exists && !v.exists {
			since = v.at
		}
		exists = v.exists
	}
	return !exists, since
}

// nodeOutOfService reports whether node was not Ready and tainted out of
// service at some commit within NodeLag before t (or as committed then).
func (c *ControllerDeletes) nodeOutOfService(node string, t sim.Time) bool {
	vs := c.nodes[node]
	for i, v := range vs {
		if v.at > t {
			break
		}
		next := i+1 < len(vs) && vs[i+1].at <= t
		if next && t.Sub(vs[i+1].at) > c.opts.NodeLag {
			continue // replaced before the window
		}
		if v.exists && !v.ready && v.oos {
			return true
		}
	}
	return false
}

// judgeCleanup judges a deletion of an old ReplicaSet by the Deployment
// controller.
func (c *ControllerDeletes) judgeCleanup(e *sim.Event, d *spoketrace.ControllerDelete, s cdSend) {
	what := fmt.Sprintf("the Deployment controller deleted replicaset %s", d.Key)
	switch {
	case !s.rsOK || s.rs.uid != d.UID:
		c.rec.Add(e, "%s, which was not committed when the deletion was sent", what)
	case s.rs.owner != d.Owner:
		c.rec.Add(e, "%s, whose controller was not its Deployment (uid %s) but %q", what, d.Owner, s.rs.owner)
	case s.rs.replicas != 0 || s.rsStatus.statusReplicas != 0:
		c.rec.Add(e, "%s, which still had replicas (spec %d, status %d)", what, s.rs.replicas, s.rsStatus.statusReplicas)
	case !s.limitOK:
		c.rec.Add(e, "%s, whose Deployment has no revisionHistoryLimit", what)
	case int32(s.siblings-1) <= s.limit:
		c.rec.Add(e, "%s, when its Deployment kept %d old ReplicaSet(s) (revisionHistoryLimit %d)", what, s.siblings-1, s.limit)
	}
}

// Finish implements Check.
func (c *ControllerDeletes) Finish() Result {
	detail := fmt.Sprintf("%d pod garbage collection(s), %d Deployment cleanup(s) and %d taint eviction(s), each for a reason its controller documents",
		c.judged[spoketrace.ControllerPodGC], c.judged[spoketrace.ControllerDeployment], c.judged[spoketrace.ControllerTaintEviction])
	if c.unmatched > 0 {
		detail += fmt.Sprintf(" (%d acknowledged deletion(s) whose sending was not traced, not judged)", c.unmatched)
	}
	return c.rec.Result(c.Name(), detail)
}

var _ Check = (*ControllerDeletes)(nil)
