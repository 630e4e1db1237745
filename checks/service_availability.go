package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/nodes/apptraffic/apptrace"
	"github.com/kubesim/kubesim/sim"
)

// ServiceAvailability checks a scenario's floor for what the
// application's users saw: the fraction of requests to Service that
// succeeded in time (apptrace.OutcomeOK) must be at least Floor. A
// scenario declares the floor its faults allow (a rolling update with a
// preStop sleep loses no request; the API servers' outage none either,
// since traffic flows on the last rules). No request at all is a failure.
type ServiceAvailability struct {
	service string
	floor   float64
	total   int
	ok      int
	rec     Recorder
}

// NewServiceAvailability returns the "service-availability" check of the
// Service "namespace/name" with floor, a fraction in [0, 1].
func NewServiceAvailability(service string, floor float64) *ServiceAvailability {
	return &ServiceAvailability{service: service, floor: floor}
}

// Name implements Check.
func (c *ServiceAvailability) Name() string { return "service-availability" }

// Observe implements Check.
func (c *ServiceAvailability) Observe(e *sim.Event) {
	r, ok := e.Data.(*apptrace.Request)
	if !ok || r.Service != c.service {
		return
	}
	c.total++
	if r.Outcome == apptrace.OutcomeOK {
		c.ok++
		return
	}
	what := r.Outcome
	if r.Reason != "" {
		what += " (" + r.Reason + ")"
	}
	c.rec.Add(e, "request of %s to %s via %s: %s, backend %q", r.Client, r.Service, r.Entry, what, r.Pod)
}

// Finish implements Check.
func (c *ServiceAvailability) Finish() Result {
	res := Result{Name: c.Name()}
	if c.total == 0 {
		res.Detail = "no request to " + c.service + ": nothing was judged"
		return res
	}
	rate := float64(c.ok) / float64(c.total)
	summary := fmt.Sprintf("%d of %d request(s) to %s succeeded (%.4f; floor %.4f)", c.ok, c.total, c.service, rate, c.floor)
	if rate < c.floor {
		res.Detail = summary + "; first failures below"
		res.Offenses = c.rec.Offenses
		return res
	}
	res.OK, res.Detail = true, summary
	return res
}

var _ Check = (*ServiceAvailability)(nil)
