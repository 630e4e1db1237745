package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// SteadyRuntime checks that the data plane holds still while the control
// plane is gone: between From and To (an API server outage, say) no
// container stops and none starts. Kubelets keep running what they run
// without the API server, and nothing can schedule or create anything
// new. The probe-driven restarts of a workload that really is broken
// would be changes too; a scenario using this check runs none.
type SteadyRuntime struct {
	from, to sim.Time
	rec      Recorder
	running  int
}

// NewSteadyRuntime returns the "steady-runtime" check over [from, to).
func NewSteadyRuntime(from, to sim.Time) *SteadyRuntime { return &SteadyRuntime{from: from, to: to} }

// Name implements Check.
func (c *SteadyRuntime) Name() string { return "steady-runtime" }

// Observe implements Check.
func (c *SteadyRuntime) Observe(e *sim.Event) {
	in := e.At >= c.from && e.At < c.to
	switch d := e.NodeData().(type) {
	case *spoketrace.ContainerStart:
		if in {
			c.rec.Add(e, "container %s of pod %s started on %s while the control plane was down", d.Container, d.Pod, d.Node)
		}
		if e.At < c.from {
			c.running++
		}
	case *spoketrace.ContainerStop:
		if in {
			c.rec.Add(e, "container %s of pod %s stopped on %s (%s) while the control plane was down", d.Container, d.Pod, d.Node, d.Reason)
		}
		if e.At < c.from {
			c.running--
		}
	}
}

// Finish implements Check.
func (c *SteadyRuntime) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d container(s) ran on through [%v, %v), none stopped or started", c.running, c.from, c.to))
}

var _ Check = (*SteadyRuntime)(nil)
