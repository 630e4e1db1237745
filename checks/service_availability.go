package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
)

// ServiceAvailability checks a scenario's floors for what the
// application's users saw: for each Service it names, the fraction of
// requests that succeeded in time (apptrace.OutcomeOK) must be at least
// its floor. A scenario declares the floor its faults allow (a rolling
// update with a preStop sleep loses no request; the API servers' outage
// none either, since traffic flows on the last rules). A Service with no
// request at all fails.
type ServiceAvailability struct {
	floors []ServiceFloor
	counts map[string]*serviceCount
}

// ServiceFloor is a Service ("namespace/name") and the least fraction of
// its requests that must succeed, in [0, 1].
type ServiceFloor struct {
	Service string
	Floor   float64
}

// serviceCount counts one Service's requests.
type serviceCount struct {
	total, ok int
	rec       Recorder
}

// NewServiceAvailability returns the "service-availability" check of the
// Services and floors given.
func NewServiceAvailability(floors ...ServiceFloor) *ServiceAvailability {
	c := &ServiceAvailability{floors: floors, counts: map[string]*serviceCount{}}
	for _, f := range floors {
		c.counts[f.Service] = &serviceCount{}
	}
	return c
}

// Name implements Check.
func (c *ServiceAvailability) Name() string { return "service-availability" }

// Observe implements Check.
func (c *ServiceAvailability) Observe(e *sim.Event) {
	r, ok := e.Data.(*apptrace.Request)
	if !ok {
		return
	}
	n := c.counts[r.Service]
	if n == nil {
		return
	}
	n.total++
	if r.Outcome == apptrace.OutcomeOK {
		n.ok++
		return
	}
	what := r.Outcome
	if r.Reason != "" {
		what += " (" + r.Reason + ")"
	}
	n.rec.Add(e, "request of %s to %s via %s: %s, backend %q", r.Client, r.Service, r.Entry, what, r.Pod)
}

// Finish implements Check.
func (c *ServiceAvailability) Finish() Result {
	res := Result{Name: c.Name(), OK: true}
	var parts []string
	for _, f := range c.floors {
		n := c.counts[f.Service]
		if n.total == 0 {
			res.OK = false
			parts = append(parts, "no request to "+f.Service)
			continue
		}
		rate := float64(n.ok) / float64(n.total)
		parts = append(parts, fmt.Sprintf("%d of %d request(s) to %s succeeded (%.4f; floor %.4f)", n.ok, n.total, f.Service, rate, f.Floor))
		if rate < f.Floor {
			res.OK = false
			res.Offenses = append(res.Offenses, n.rec.Offenses...)
		}
	}
	res.Detail = strings.Join(parts, "; ")
	if !res.OK {
		res.Detail += ": below a floor; first failures below"
	}
	if len(res.Offenses) > MaxOffenses {
		res.Offenses = res.Offenses[:MaxOffenses]
	}
	return res
}

var _ Check = (*ServiceAvailability)(nil)
