package checks

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/nodes/apiserver/apitrace"
	"github.com/kubesim/kubesim/sim"
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
	opts    APILinearizabilityOptions
	ops     []apiOp
	pending map[callID]int
	clients map[string]int
	names   []string
	other   map[string]bool // partition keys touched by other write verbs
	orphans int
	info    *porcupine.LinearizationInfo
}

// apiOp is one client call of an API history.
type apiOp struct {
	client   int
	op       uint64
	in       APIInput
	cacheGet bool // a get with a resourceVersion: not a quorum read
	call     sim.Time
	callSeq  uint64
	returned bool
	ret      sim.Time
	retSeq   uint64
	out      APIOutput
}

// NewAPILinearizability returns the "api-linearizability" check.
func NewAPILinearizability(opts ...APILinearizabilityOptions) *APILinearizability {
	var o APILinearizabilityOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.MaxVisualizedKeys <= 0 {
		o.MaxVisualizedKeys = 10
	}
	return &APILinearizability{opts: o, pending: map[callID]int{}, clients: map[string]int{}, other: map[string]bool{}}
}

// Name implements Check.
func (c *APILinearizability) Name() string { return "api-linearizability" }

// Observe implements Check.
func (c *APILinearizability) Observe(e *sim.Event) {
	if e.Kind != sim.KindNode {
		return
	}
	switch d := e.Data.(type) {
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
		ci, ok := c.clients[d.Client]
		if !ok {
			ci = len(c.names)
			c.clients[d.Client] = ci
			c.names = append(c.names, d.Client)
		}
		c.pending[callID{d.Client, d.Op}] = len(c.ops)
		c.ops = append(c.ops, apiOp{client: ci, op: d.Op, in: in, cacheGet: d.Verb == APIGet && d.RV != "", call: e.At, callSeq: e.Seq})
	case *apitrace.Return:
		id := callID{d.Client, d.Op}
		i, ok := c.pending[id]
		if !ok {
			c.orphans++
			return
		}
		delete(c.pending, id)
		op := &c.ops[i]
		op.returned, op.ret, op.retSeq = true, e.At, e.Seq
		op.out = APIOutput{Code: d.Code, Found: d.Found, Value: d.Value, RV: d.RV}
	}
}

// apiHistStats counts how the calls were used.
type apiHistStats struct {
	reads, writes, unknown, cacheReads, droppedReads, droppedWrites, otherVerbObjects, keys int
}

// unknownOutcome reports a code after which a write may or may not have
// been applied.
func unknownOutcome(code int) bool { return code == 0 || (code >= 500 && code != 503) }

// operations builds the porcupine history per object, in key order.
func (c *APILinearizability) operations() (keys []string, parts [][]porcupine.Operation, src [][]int, st apiHistStats) {
	index := map[string]int{}
	var byKey [][]porcupine.Operation
	var srcByKey [][]int
	excluded := map[string]bool{}
	for i := range c.ops {
		op := &c.ops[i]
		pk := apiPartitionKey(op.in)
		if c.other[pk] {
			excluded[pk] = true
			continue
		}
		read := op.in.Verb == APIGet
		out, ret := op.out, int64(op.ret)
		code := op.out.Code
		switch {
		case op.cacheGet:
			st.cacheReads++
			continue
		case read && op.returned && (ok2xx(code) || code == 404):
		case read:
			st.droppedReads++
			continue
		case op.returned && (ok2xx(code) || code == 404 || code == 409):
		case !op.returned || unknownOutcome(code):
			out, ret = APIOutput{Unknown: true}, math.MaxInt64
			st.unknown++
		default:
			st.droppedWrites++
			continue
		}
		if read {
			st.reads++
		} else {
			st.writes++
		}
		k, ok := index[pk]
		if !ok {
			k = len(byKey)
			index[pk] = k
			byKey = append(byKey, nil)
			srcByKey = append(srcByKey, nil)
		}
		byKey[k] = append(byKey[k], porcupine.Operation{ClientId: op.client, Input: op.in, Call: int64(op.call), Output: out, Return: ret})
		srcByKey[k] = append(srcByKey[k], i)
	}
	st.otherVerbObjects = len(excluded)
	keys = sim.SortedKeys(index)
	st.keys = len(keys)
	for _, k := range keys {
		parts = append(parts, byKey[index[k]])
		src = append(src, srcByKey[index[k]])
	}
	return keys, parts, src, st
}

// Finish implements Check. It runs porcupine on each object's history.
func (c *APILinearizability) Finish() Result {
	keys, parts, src, st := c.operations()
	var illegal, unknown []int
	for i, part := range parts {
		switch porcupine.CheckOperationsTimeout(APIModel, part, c.opts.Timeout) {
		case porcupine.Illegal:
			illegal = append(illegal, i)
		case porcupine.Unknown:
			unknown = append(unknown, i)
		}
	}
	summary := fmt.Sprintf("%d ops on %d objects (%d quorum reads, %d writes of which %d with unknown outcome; skipped %d cache reads; dropped %d failed reads, %d writes refused before etcd; left out %d objects written by other verbs)",
		st.reads+st.writes, st.keys, st.reads, st.writes, st.unknown, st.cacheReads, st.droppedReads, st.droppedWrites, st.otherVerbObjects)
	switch {
	case len(illegal) > 0:
		offs := c.explain(keys, parts, src, illegal)
		return Result{Name: c.Name(), OK: false, Offenses: offs,
			Detail: fmt.Sprintf("not linearizable on %d of %d objects (%s); first: %s", len(illegal), len(keys),
				keyList(keys, illegal), offs[0].What)}
	case len(unknown) > 0:
		return Result{Name: c.Name(), OK: false,
			Detail: fmt.Sprintf("api linearizability unknown: porcupine timed out after %v on %d objects (%s); %s",
				c.opts.Timeout, len(unknown), keyList(keys, unknown), summary)}
	}
	if c.orphans > 0 {
		summary += fmt.Sprintf("; ignored %d returns without a call", c.orphans)
	}
	return Result{Name: c.Name(), OK: true, Detail: "linearizable: " + summary}
}

// explain re-runs porcupine verbosely on the failing objects, keeps the
// result for WriteVisualization, and returns one offense per object.
func (c *APILinearizability) explain(keys []string, parts [][]porcupine.Operation, src [][]int, illegal []int) []Offense {
	if len(illegal) > c.opts.MaxVisualizedKeys {
		illegal = illegal[:c.opts.MaxVisualizedKeys]
	}
	var combined []porcupine.Operation
	for _, p := range illegal {
		for j, op := range parts[p] {
			o := &c.ops[src[p][j]]
			op.Metadata = fmt.Sprintf("%s op %d (event %d)", c.names[o.client], o.op, o.callSeq)
			combined = append(combined, op)
		}
	}
	_, info := porcupine.CheckOperationsVerbose(APIModel, combined, c.opts.Timeout)
	c.info = &info
	partials := info.PartialLinearizations()
	var offs []Offense
	for n, p := range illegal {
		if n >= len(partials) || len(offs) >= MaxOffenses {
			break
		}
		offs = append(offs, c.offense(keys[p], parts[p], src[p], partials[n]))
	}
	if len(offs) == 0 {
		offs = append(offs, Offense{What: fmt.Sprintf("api-linearizability: object %q has no linearization", keys[illegal[0]])})
	}
	return offs
}

// offense names the longest linearizable prefix, the state it leaves, and
// the first-returning operation that no order could fit after it.
func (c *APILinearizability) offense(key string, part []porcupine.Operation, src []int, partials [][]int) Offense {
	prefix, state, culprit := explainFailure(APIModel, part, partials)
	if culprit < 0 {
		return Offense{What: fmt.Sprintf("api-linearizability: object %q has no linearization", key)}
	}
	o := &c.ops[src[culprit]]
	at, seq := o.call, o.callSeq
	ret := "never"
	if o.returned {
		at, seq, ret = o.ret, o.retSeq, o.ret.String()
	}
	return Offense{At: at, Seq: seq, What: fmt.Sprintf(
		"api-linearizability: object %q: after %d linearized ops (state %s), no order fits %s by %s op %d [called %v, returned %s]",
		key, len(prefix), APIModel.DescribeState(state), APIModel.DescribeOperation(part[culprit].Input, part[culprit].Output),
		c.names[o.client], o.op, o.call, ret)}
}

// WriteVisualization writes porcupine's HTML visualization of the failing
// objects' histories. It returns ErrNoVisualization unless Finish found a
// violation.
func (c *APILinearizability) WriteVisualization(w io.Writer) error {
	if c.info == nil {
		return ErrNoVisualization
	}
	return porcupine.Visualize(APIModel, *c.info, w)
}

var _ Check = (*APILinearizability)(nil)
