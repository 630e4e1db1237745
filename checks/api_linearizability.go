package checks

import (
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// APILinearizabilityOptions tune the api-linearizability check. The zero
// value is the default.
type APILinearizabilityOptions struct {
	// Timeout bounds porcupine's search on each object; 0 means no bound. A
	// search that times out is reported as a failure ("unknown").
	Timeout time.Duration
	// MaxVisualizedKeys caps how many failing objects are kept for the
	// visualization and the offenses; 0 means 10.
	MaxVisualizedKeys int
}

// APILinearizability checks that the API server's single-object quorum
// operations, as clients record them (apitrace.Call and apitrace.Return),
// are linearizable against APIModel, with porcupine, object by object
// (resource and key).
//
// Which calls enter the history:
//   - get with resourceVersion "" (a quorum read) answered 2xx or 404;
//     gets with any other resourceVersion are served from the watch cache
//     and may be stale by design, so they are skipped, as are reads with
//     any other answer (they changed nothing and told nothing);
//   - create, update and delete answered 2xx, 404 or 409, with that answer;
//   - create, update and delete with no answer (Code 0: timeout, lost
//     connection, or no Return by the end of the run) or a 5xx other than
//     503 (504 Timeout: etcd did not answer in time; 500: the server failed
//     somewhere, perhaps after writing): the outcome is unknown, so the
//     write may take effect at any time after its call, or never;
//   - create, update and delete refused before reaching etcd are dropped, as
//     definitely not applied: 400 BadRequest, 401, 403 Forbidden, 410, 422
//     Invalid, 429 TooManyRequests and 503 ServiceUnavailable (etcd
//     refused, e.g. no leader: the Txn did not happen);
//   - other verbs (update-status, patch, bind) are not modelled: an object
//     that any of them touched is left out of the check entirely (counted
//     in the detail), since its value and resourceVersion change in ways
//     the model does not follow.
type APILinearizability struct {
	opts  APILinearizabilityOptions
	hist  callLog[apiCall, APIOutput]
	other map[string]bool // partition keys touched by other write verbs
	run   *linRunner
}

// apiCall is what an API call of the history asked.
type apiCall struct {
	in       APIInput
	cacheGet bool // a get with a resourceVersion: not a quorum read
}

// NewAPILinearizability returns the "api-linearizability" check.
func NewAPILinearizability(opts ...APILinearizabilityOptions) *APILinearizability {
	var o APILinearizabilityOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	c := &APILinearizability{opts: o, hist: newCallLog[apiCall, APIOutput](), other: map[string]bool{}}
	c.run = newLinRunner(c.Name(), "object", APIModel, o.Timeout, o.MaxVisualizedKeys)
	c.run.split = apiSegments
	return c
}

// Name implements Check.
func (c *APILinearizability) Name() string { return "api-linearizability" }

// Observe implements Check.
func (c *APILinearizability) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *apitrace.Call:
		in := APIInput{Verb: d.Verb, Resource: d.Resource, Key: d.Key, Value: d.Value, Precondition: d.Precondition}
		switch d.Verb {
		case APIGet, APICreate, APIUpdate, APIDelete:
		case "list", "watch":
			return
		default:
			c.other[apiPartitionKey(in)] = true
			return
		}
		c.hist.call(e, d.Client, d.Op, apiCall{in: in, cacheGet: d.Verb == APIGet && d.RV != ""})
	case *apitrace.Return:
		c.hist.ret(e, d.Client, d.Op, APIOutput{Code: d.Code, Found: d.Found, Value: d.Value, RV: d.RV})
	}
}

// apiHistStats counts how the calls were used.
type apiHistStats struct {
	reads, writes, unknown, cacheReads, droppedReads, droppedWrites, otherVerbObjects int
}

// unknownOutcome reports a code after which a write may or may not have
// been applied.
func unknownOutcome(code int) bool { return code == 0 || (code >= 500 && code != 503) }

// operations builds the porcupine history per object.
func (c *APILinearizability) operations() (keyedHistory, apiHistStats) {
	var st apiHistStats
	excluded := map[string]bool{}
	h := c.hist.keyed(func(op *loggedCall[apiCall, APIOutput]) (string, porcupine.Operation, bool) {
		pk := apiPartitionKey(op.in.in)
		if c.other[pk] {
			excluded[pk] = true
			return "", porcupine.Operation{}, false
		}
		read := op.in.in.Verb == APIGet
		out, unknown := op.out, false
		code := op.out.Code
		switch {
		case op.in.cacheGet:
			st.cacheReads++
			return "", porcupine.Operation{}, false
		case read && op.returned && (ok2xx(code) || code == 404):
		case read:
			st.droppedReads++
			return "", porcupine.Operation{}, false
		case op.returned && (ok2xx(code) || code == 404 || code == 409):
		case !op.returned || unknownOutcome(code):
			out, unknown = APIOutput{Unknown: true}, true
			st.unknown++
		default:
			st.droppedWrites++
			return "", porcupine.Operation{}, false
		}
		if read {
			st.reads++
		} else {
			st.writes++
		}
		return pk, op.operation(op.in.in, out, unknown), true
	})
	st.otherVerbObjects = len(excluded)
	return h, st
}

// Finish implements Check. It runs porcupine on each object's history.
func (c *APILinearizability) Finish() Result {
	h, st := c.operations()
	summary := fmt.Sprintf("%d ops on %d objects (%d quorum reads, %d writes of which %d with unknown outcome; skipped %d cache reads; dropped %d failed reads, %d writes refused before etcd; left out %d objects written by other verbs)",
		st.reads+st.writes, len(h.keys), st.reads, st.writes, st.unknown, st.cacheReads, st.droppedReads, st.droppedWrites, st.otherVerbObjects)
	return c.run.judge(h, &c.hist, summary, c.hist.orphans)
}

// WriteVisualization writes porcupine's HTML visualization of the failing
// objects' histories. It returns ErrNoVisualization unless Finish found a
// violation.
func (c *APILinearizability) WriteVisualization(w io.Writer) error {
	return c.run.writeVisualization(w)
}

var _ Visualizer = (*APILinearizability)(nil)
