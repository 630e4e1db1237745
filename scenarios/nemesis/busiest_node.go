package nemesis

import (
	"slices"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Placement follows the kubelets' runtimes to know how many containers
// run on each node, so that a nemesis can pick the node that hurts most.
type Placement struct {
	running map[string]map[string]bool // node -> owned pod UID -> running
}

// NewPlacement returns an empty tracker; subscribe its Observe.
func NewPlacement() *Placement { return &Placement{running: map[string]map[string]bool{}} }

// Observe consumes one trace event.
func (p *Placement) Observe(e *sim.Event) {
	switch d := e.Data.(type) {
	case *spoketrace.ContainerStart:
		if d.Owner == "" {
			return // not a workload's pod
		}
		if p.running[d.Node] == nil {
			p.running[d.Node] = map[string]bool{}
		}
		p.running[d.Node][d.UID] = true
	case *spoketrace.ContainerStop:
		delete(p.running[d.Node], d.UID)
	}
}

// Busiest returns the node of nodes running the most pods that a
// controller owns (the first in nodes' order on a tie) among live hosts,
// skipping the nodes in spare.
func (p *Placement) Busiest(w *sim.World, nodes, spare []string) string {
	best, most := "", -1
	for _, n := range nodes {
		if h, ok := w.HostByName(n); !ok || !h.Up() || slices.Contains(spare, n) {
			continue
		}
		if k := len(p.running[n]); k > most {
			best, most = n, k
		}
	}
	return best
}

// Running returns how many owned pods run on node.
func (p *Placement) Running(node string) int { return len(p.running[node]) }

// KillBusiestNode is the nemesis of node-death and node-eviction: at at it
// crashes, for good, the node running the most pods, and records it in
// c.Dead for the operator's script.
func KillBusiestNode(c *Cluster, at time.Duration) { crashBusiestNode(c, at, true) }

// LoseBusiestNode is KillBusiestNode without the record in c.Dead: the
// node is lost for good and its Node object stays, as when a machine dies
// and nobody deletes it, so the node lifecycle controller taints it and
// its pods are evicted once their tolerations run out.
func LoseBusiestNode(c *Cluster, at time.Duration) { crashBusiestNode(c, at, false) }

// crashBusiestNode crashes the busiest node for good at at, recording it
// in c.Dead if record.
func crashBusiestNode(c *Cluster, at time.Duration, record bool) {
	c.World.At(sim.Time(at), "nemesis-kill-node", func() {
		victim := c.Placement.Busiest(c.World, c.Nodes, c.Spare)
		if victim == "" {
			return
		}
		if record {
			*c.Dead = append(*c.Dead, victim)
		}
		c.World.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{victim}}})
	})
}
