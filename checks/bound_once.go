package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// BoundOnce checks that a pod is bound once and runs only where it was
// bound: the API server refuses a second binding of a pod (the binding
// subresource conflicts once spec.nodeName is set), so however many
// schedulers race, at most one binding of a UID is answered 200. It fails
// on:
//   - two spoketrace.Bound events for one pod UID (even to the same node);
//   - containers of one UID starting on two different nodes;
//   - a container starting on another node than the one its pod was bound
//     to;
//   - an API server sending to etcd a binding of a pod that is already
//     bound (apitrace.Admit of verb bind whose stored object has a node):
//     the binding's conflict check exists to refuse exactly that.
type BoundOnce struct {
	bound   map[string]string // uid -> node of its first binding
	ranOn   map[string]string // uid -> node of its first container start
	rec     Recorder
	binds   int
	started int
}

// NewBoundOnce returns the "bound-once" check.
func NewBoundOnce() *BoundOnce {
	return &BoundOnce{bound: map[string]string{}, ranOn: map[string]string{}}
}

// Name implements Check.
func (c *BoundOnce) Name() string { return "bound-once" }

// Observe implements Check.
func (c *BoundOnce) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *apitrace.Admit:
		if d.Verb == "bind" && d.OldNode != "" {
			c.rec.Add(e, "%s sent a binding of pod %s to %s to etcd, but the pod was already bound to %s", d.Server, d.Key, d.NodeName, d.OldNode)
		}
	case *spoketrace.Bound:
		c.binds++
		if prev, ok := c.bound[d.UID]; ok {
			c.rec.Add(e, "pod %s (uid %s) bound twice: to %s, then by %s to %s", d.Pod, d.UID, prev, d.Scheduler, d.Node)
			return
		}
		c.bound[d.UID] = d.Node
		if ran, ok := c.ranOn[d.UID]; ok && ran != d.Node {
			c.rec.Add(e, "pod %s (uid %s) bound to %s by %s after it started on %s", d.Pod, d.UID, d.Node, d.Scheduler, ran)
		}
	case *spoketrace.ContainerStart:
		prev, ok := c.ranOn[d.UID]
		if !ok {
			c.started++
			c.ranOn[d.UID] = d.Node
		}
		switch node, bound := c.bound[d.UID]; {
		case ok && prev != d.Node:
			c.rec.Add(e, "pod %s (uid %s) runs on two nodes: container %s started on %s after one started on %s", d.Pod, d.UID, d.Container, d.Node, prev)
		case bound && node != d.Node:
			c.rec.Add(e, "pod %s (uid %s) bound to %s, but container %s started on %s", d.Pod, d.UID, node, d.Container, d.Node)
		}
	}
}

// Finish implements Check.
func (c *BoundOnce) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d binding(s) of %d pod(s), each bound once; %d pod(s) started, each on one node",
		c.binds, len(c.bound), c.started))
}

var _ Check = (*BoundOnce)(nil)
