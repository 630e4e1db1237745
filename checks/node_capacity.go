package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// NodeCapacity checks that no node is given more than it has, where
// Kubernetes guarantees it:
//   - running: at no instant do the pods with a container running on a
//     node (the runtime truth; a crash stops them all) request more cpu or
//     memory than the node's allocatable, or number more than its pods
//     limit. The kubelet's admission guarantees this everywhere, whatever
//     the schedulers did: it rejects (OutOfcpu, ...) a pod that does not
//     fit beside the pods it already admitted;
//   - bound: a scheduler never binds a pod to a node where the pods it
//     bound there itself since it last started leading (a scheduler
//     without leader election: since it started), and that are neither
//     deleted nor rejected, would request more than the node's
//     allocatable with this one. That is the scheduler's assume cache: a
//     pod it chose counts on its node at once, before the binding comes
//     back through its informer. Bindings by other schedulers are not
//     counted: two schedulers (the unelected one of a split brain, or a
//     deposed leader that has not noticed yet) can legitimately overcommit
//     a node between them, which is why the kubelet admits pods again.
//
// A pod's requests come from its Bound or PodAdmit event, a node's
// allocatable from its kubelet's NodeAllocatable; a pod counts as deleted
// from the first delete the API server admits for it (the scheduler learns
// of it later, so the check never counts a pod the scheduler no longer
// does), and as rejected from its kubelet's PodAdmit.
type NodeCapacity struct {
	alloc   map[string]nodeAlloc
	pods    map[string]*capPod // by UID
	byKey   map[string]string  // pod key -> its latest UID
	terms   map[string]map[string]bool
	hostOf  map[sim.HostID]string // scheduler host -> scheduler
	rt      *runtimeTruth
	over    map[string]bool // nodes whose running pods exceed allocatable now
	rec     Recorder
	binds   int
	admits  int
	rejects map[string]int // by reason
}

// nodeAlloc is a node's allocatable.
type nodeAlloc struct{ cpu, mem, pods int64 }

// capPod is one pod as the check knows it.
type capPod struct {
	key, node string
	cpu, mem  int64
	gone      bool
}

// NewNodeCapacity returns the "node-capacity" check.
func NewNodeCapacity() *NodeCapacity {
	return &NodeCapacity{alloc: map[string]nodeAlloc{}, pods: map[string]*capPod{}, byKey: map[string]string{},
		terms: map[string]map[string]bool{}, hostOf: map[sim.HostID]string{}, rt: newRuntimeTruth(),
		over: map[string]bool{}, rejects: map[string]int{}}
}

// Name implements Check.
func (c *NodeCapacity) Name() string { return "node-capacity" }

func (c *NodeCapacity) pod(uid, key string, cpu, mem int64) *capPod {
	p := c.pods[uid]
	if p == nil {
		p = &capPod{key: key, cpu: cpu, mem: mem}
		c.pods[uid] = p
		c.byKey[key] = uid
	}
	return p
}

// Observe implements Check.
func (c *NodeCapacity) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		if s, ok := c.hostOf[e.Host]; ok && sim.FaultKind(e.Name).CrashesHost() {
			delete(c.terms, s) // the scheduler's process is gone, with its cache
		}
		c.observeRuntime(e)
		return
	}
	if e.Kind != sim.KindNode {
		return
	}
	switch d := e.Data.(type) {
	case *spoketrace.NodeAllocatable:
		c.alloc[d.Node] = nodeAlloc{d.CPU, d.Memory, d.Pods}
	case *spoketrace.PodAdmit:
		c.admits++
		p := c.pod(d.UID, d.Pod, d.CPU, d.Memory)
		if !d.Admitted {
			c.rejects[d.Reason]++
			p.gone = true
		}
	case *spoketrace.Leading:
		if d.Component == "kube-scheduler" {
			delete(c.terms, d.Identity) // a new term, or the process exits
		}
	case *apitrace.Admit:
		if d.Verb == "delete" && d.Resource == "pods" {
			if uid, ok := c.byKey[d.Key]; ok {
				c.pods[uid].gone = true
			}
		}
	case *spoketrace.Bound:
		c.observeBound(e, d)
	default:
		c.observeRuntime(e)
	}
}

// observeBound judges a binding against its scheduler's own bindings.
func (c *NodeCapacity) observeBound(e *sim.Event, d *spoketrace.Bound) {
	c.binds++
	c.hostOf[e.Host] = d.Scheduler
	p := c.pod(d.UID, d.Pod, d.CPU, d.Memory)
	p.node = d.Node
	term := c.terms[d.Scheduler]
	if term == nil {
		term = map[string]bool{}
		c.terms[d.Scheduler] = term
	}
	a, ok := c.alloc[d.Node]
	if ok {
		cpu, mem, n := p.cpu, p.mem, int64(1)
		for _, uid := range sim.SortedKeys(term) {
			if q := c.pods[uid]; q.node == d.Node && !q.gone && uid != d.UID {
				cpu, mem, n = cpu+q.cpu, mem+q.mem, n+1
			}
		}
		if why := a.exceeded(cpu, mem, n); why != "" {
			c.rec.Add(e, "%s bound pod %s to %s, where the pods it bound itself now request %s", d.Scheduler, d.Pod, d.Node, why)
		}
	}
	term[d.UID] = true
}

// exceeded says how requests exceed a, or "".
func (a nodeAlloc) exceeded(cpu, mem, pods int64) string {
	switch {
	case cpu > a.cpu:
		return fmt.Sprintf("cpu %dm of %dm allocatable", cpu, a.cpu)
	case mem > a.mem:
		return fmt.Sprintf("memory %d of %d bytes allocatable", mem, a.mem)
	case pods > a.pods:
		return fmt.Sprintf("%d pods of %d allowed", pods, a.pods)
	}
	return ""
}

// observeRuntime follows what runs and judges the node an event touched.
func (c *NodeCapacity) observeRuntime(e *sim.Event) {
	c.rt.observe(e)
	switch d := e.Data.(type) {
	case *spoketrace.ContainerStart:
		c.judgeRunning(e, d.Node)
	case *spoketrace.ContainerStop:
		c.judgeRunning(e, d.Node)
	case nil:
		if node, ok := c.rt.names[e.Host]; ok && e.Kind == sim.KindFault {
			c.judgeRunning(e, node)
		}
	}
}

// judgeRunning sums the requests of the pods running on node.
func (c *NodeCapacity) judgeRunning(e *sim.Event, node string) {
	a, ok := c.alloc[node]
	if !ok {
		return
	}
	var cpu, mem, n int64
	var keys []string
	for _, p := range c.rt.podsOn(node) {
		n++
		if q := c.pods[p.uid]; q != nil {
			cpu, mem = cpu+q.cpu, mem+q.mem
		}
		keys = append(keys, p.key)
	}
	why := a.exceeded(cpu, mem, n)
	switch {
	case why == "":
		delete(c.over, node)
	case !c.over[node]:
		c.over[node] = true
		c.rec.Add(e, "the pods running on %s request %s: %v", node, why, keys)
	}
}

// Finish implements Check.
func (c *NodeCapacity) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d binding(s), each within what its scheduler had bound there; %d admission(s), %d rejected %v; running pods never exceeded a node's allocatable",
		c.binds, c.admits, c.rejected(), c.rejects))
}

func (c *NodeCapacity) rejected() int {
	n := 0
	// determinism: a sum, whatever the order.
	for _, v := range c.rejects {
		n += v
	}
	return n
}

var _ Check = (*NodeCapacity)(nil)
