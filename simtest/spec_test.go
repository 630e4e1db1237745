package simtest

import (
	"time"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// neverCrashed is a user's invariant of the kind an operator writes: the
// host it names must never crash. Under stack chaos, whether it does
// depends on the seed, so that some seeds fail and others pass.
type neverCrashed struct {
	w    *sim.World
	host string
	rec  checks.Recorder
}

func (c *neverCrashed) Name() string { return "user-" + c.host + "-never-crashes" }

func (c *neverCrashed) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault && sim.FaultKind(e.Name).CrashesHost() && c.w.HostName(e.Host) == c.host {
		c.rec.Add(e, "%s: %s", c.host, e.Name)
	}
}

func (c *neverCrashed) Finish() checks.Result {
	return c.rec.Result(c.Name(), c.host+" never crashed")
}

// userSpec is a small spec of a user's own, built as the catalogue builds
// its: stack chaos on two nodes, with a check of the user's beside the
// stack's (when host is set).
func userSpec(name, host string) scenarios.Spec {
	spec := catalogue.StackChaosSpec(name, 2, 2, 2, 300*time.Second)
	spec.Build = func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		if host == "" {
			return nil, nil
		}
		return []checks.Check{&neverCrashed{w: c.World, host: host}}, nil
	}
	return spec
}
