package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
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
//   - every ReplicaSet not being deleted, and not waiting out the
//     expectations timeout (5 min) for a deletion its controller cannot
//     observe (see rsExpectations: a tombstone whose last known state
//     names no controller), has exactly spec.replicas active
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
	exp     *rsExpectations
	owners  map[string]*ownerServing // owner UID -> its pods running and ready
	serving map[string]string        // pod UID -> the owner it is counted for as serving
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
	return &Convergence{opts: opts, rt: newRuntimeTruth(), exp: newRSExpectations(), owners: map[string]*ownerServing{},
		serving: map[string]string{}}
}

// Name implements Check.
func (c *Convergence) Name() string { return "convergence" }

// Observe implements Check.
func (c *Convergence) Observe(e *sim.Event) {
	c.exp.observe(e)
	if d, ok := e.Data.(*spoketrace.ClusterState); ok {
		c.state = copyClusterState(d)
		c.stateAt, c.stateSq = e.At, e.Seq
		c.verdict = c.judgeState(c.state, e.At)
		return
	}
	for _, p := range c.rt.observe(e) {
		c.syncServing(e.At, p)
	}
}

// syncServing recounts pod p in its owner's serving pods (its owner may
// have changed: a pod adopted or released).
func (c *Convergence) syncServing(at sim.Time, p *podTruth) {
	now := ""
	if p.owner != "" && c.rt.serving(p) {
		now = p.owner
	}
	prev := c.serving[p.uid]
	if now == prev {
		return
	}
	if prev != "" {
		o := c.owners[prev]
		o.n--
		o.since = at
		delete(c.serving, p.uid)
	}
	if now != "" {
		o := getOrNew(c.owners, now, func() *ownerServing { return &ownerServing{} })
		o.n++
		o.since = at
		c.serving[p.uid] = now
	}
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
func (c *Convergence) judgeState(cs *spoketrace.ClusterState, at sim.Time) []string {
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
		if !rs.Deleting && !c.exp.waiting(rs.UID, at) {
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
