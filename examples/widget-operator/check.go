package widgetoperator

import (
	"fmt"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/sim"
)

// ReplicasCheck is the operator's invariant: at the end of the run, every
// Widget has a Deployment of the same name, controlled by that Widget
// (by UID), whose spec.replicas equals the Widget's. It reads the
// auditor's WidgetState from the trace; a run without one fails, so that a
// missing audit is never taken for a pass.
type ReplicasCheck struct {
	state *WidgetState
	at    sim.Time
	seq   uint64
}

// Name is the check's identifier in reports.
func (*ReplicasCheck) Name() string { return "widget-replicas" }

// Observe keeps the last WidgetState.
func (c *ReplicasCheck) Observe(e *sim.Event) {
	if s, ok := e.Data.(*WidgetState); ok {
		c.state, c.at, c.seq = s, e.At, e.Seq
	}
}

// Finish judges the final state.
func (c *ReplicasCheck) Finish() checks.Result {
	r := checks.Result{Name: c.Name()}
	if c.state == nil {
		r.Detail = "no widgets.state event: the auditor could not list the final state"
		return r
	}
	deps := map[string]Owned{}
	for _, d := range c.state.Deployments {
		deps[d.Name] = d
	}
	for _, w := range c.state.Widgets {
		d, ok := deps[w.Name]
		var what string
		switch {
		case !ok:
			what = fmt.Sprintf("Widget %s (replicas %d) has no Deployment", w.Name, w.Replicas)
		case d.UID != w.UID:
			what = fmt.Sprintf("Deployment %s is controlled by %q, not by Widget %s (%s)", d.Name, d.UID, w.Name, w.UID)
		case d.Replicas != w.Replicas:
			what = fmt.Sprintf("Deployment %s has %d replicas, its Widget wants %d", d.Name, d.Replicas, w.Replicas)
		default:
			continue
		}
		r.Offenses = append(r.Offenses, checks.Offense{At: c.at, Seq: c.seq, What: what})
	}
	if len(r.Offenses) > 0 {
		r.Detail = fmt.Sprintf("%d of %d Widget(s) not reconciled; first: %s", len(r.Offenses), len(c.state.Widgets), r.Offenses[0].What)
		return r
	}
	r.OK = true
	r.Detail = fmt.Sprintf("%d Widget(s), each with its Deployment at its replicas", len(c.state.Widgets))
	return r
}
