package checks

import (
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// sliceRetries follows the EndpointSlice controller's retries
// (spoketrace.ControllerRetry): a sync of a Service that failed, most
// often because its slice informer had not yet caught up with its own
// writes (the endpointSliceTracker's stale cache), waits the work queue's
// per-Service exponential backoff (1 s, doubling, after each failure in a
// row) unless an event queues the Service again. A change the controller
// could not show during that wait is not late: the endpoints checks count
// their bounds from the retry.
type sliceRetries struct {
	// until is, by Service, the latest moment a retry was scheduled for.
	until map[string]sim.Time
}

func newSliceRetries() sliceRetries { return sliceRetries{until: map[string]sim.Time{}} }

// observe follows one trace event.
func (r *sliceRetries) observe(e *sim.Event) {
	d, ok := e.Data.(*spoketrace.ControllerRetry)
	if !ok || d.Controller != spoketrace.ControllerEndpointSlice {
		return
	}
	r.until[d.Key] = max(r.until[d.Key], e.At.Add(time.Duration(d.AfterNs)))
}

// after is the latest retry scheduled for svc (0 if none).
func (r *sliceRetries) after(svc string) sim.Time { return r.until[svc] }
