package scenarios

import (
	"time"

	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apptraffic"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// StackOp is one kind of operation of the full stack's workload that a
// swarm run switches on or off per seed (StackTopology.Ops): an operator
// action or an application behaviour, with what it needs of the world. A
// swarm of them makes worlds no fixed script makes: probes that flap
// while nodes are cut off, users' traffic through a rollout under an
// etcd election, a node that dies while pods are moved between owners.
//
// Each op draws its moments from a stream of its own
// ("scenario/swarm-op/<name>"), so that switching one op on or off leaves
// what every other op draws unchanged.
type StackOp struct {
	// Name is how the run reports the op ("ops probes,traffic").
	Name string
	// Traffic are users the op adds (apptraffic.Config, as
	// StackTopology.Traffic).
	Traffic []apptraffic.Config
	// Steps are the op's operator actions, run by an operator host of
	// their own ("operator-<name>"), in order: one op's waiting does not
	// hold up another's. faultEnd is when the faults end.
	Steps func(l *StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step
	// Drive, when set, installs the op's nemesis once the world is built
	// (as Spec.Driver does): a node that dies for good, say.
	Drive func(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration)
	// Apply, when set, changes the topology before anything is built (a
	// flag of the controller managers, say); the checks see the change.
	Apply func(*StackTopology)
}

// stackOpStream names the stream an op draws from.
func stackOpStream(name string) string { return "scenario/swarm-op/" + name }

// drawStackOps switches each op on with probability 1/2, at least one,
// from the world's SwarmOpsStream, and records the names of those on in
// c.SwarmOps.
func drawStackOps(c *Cluster, ops []StackOp) []StackOp {
	var on []StackOp
	c.SwarmOps = nil
	for i, pick := range nemesis.SwarmPick(c.World.Rand(SwarmOpsStream), len(ops)) {
		if pick {
			on = append(on, ops[i])
			c.SwarmOps = append(c.SwarmOps, ops[i].Name)
		}
	}
	return on
}

// prepareStackOps draws the ops of a swarm run once, before the stack is
// built: top.Ops becomes the ops on, each op's Apply changes top, and
// BuildStack draws no more.
func prepareStackOps(c *Cluster, top *StackTopology) {
	if top.opsDrawn || len(top.Ops) == 0 {
		return
	}
	top.Ops, top.opsDrawn = drawStackOps(c, top.Ops), true
	for _, op := range top.Ops {
		if op.Apply != nil {
			op.Apply(top)
		}
	}
}

// driveStackOps installs the drivers of the ops a swarm run switched on.
func driveStackOps(c *Cluster, view *nemesis.Cluster, faultEnd time.Duration) {
	if c.Stack == nil {
		return
	}
	for _, op := range c.Stack.ops {
		if op.Drive != nil {
			op.Drive(view, c.World.Rand(stackOpStream(op.Name)+"/drive"), faultEnd)
		}
	}
}

// APIKnob is one setting of the API layer a swarm run switches on or off
// per seed (APITopology.Knobs): paged informers, a short watch cache, a
// compaction that runs often. Apply changes the topology before the layer
// is built. On with probability 1/2 each (none may be on), from a stream
// of its own, apart from the fault kinds' and the KV operations'; the run
// reports those on among its operations.
type APIKnob struct {
	Name  string
	Apply func(*APITopology)
}

// apiKnobStream names the stream a swarm run draws its API knobs from.
const apiKnobStream = "scenario/swarm-api-knobs"

// drawAPIKnobs applies the knobs a seed switches on to top, and records
// their names in c.SwarmOps.
// It draws once: top.Knobs is emptied, so that the scenario runner can
// draw before it reads the topology for the checks, and BuildAPI after it
// draws nothing more.
func drawAPIKnobs(c *Cluster, top *APITopology) {
	if len(top.Knobs) == 0 {
		return
	}
	rng := c.World.Rand(apiKnobStream)
	for _, k := range top.Knobs {
		if rng.IntN(2) == 0 {
			k.Apply(top)
			c.SwarmOps = append(c.SwarmOps, k.Name)
		}
	}
	top.Knobs = nil
}
