package checks

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// LinearizabilityOptions tune the linearizability check. The zero value is
// the default.
type LinearizabilityOptions struct {
	// Timeout bounds porcupine's search on each key; 0 means no bound. A
	// search that times out gives no verdict, which the check reports as a
	// failure ("unknown").
	Timeout time.Duration
	// FailedWritesMayApply treats a write that ended with OutcomeFail like
	// one that timed out: it may or may not have taken effect. By default a
	// failed write is dropped from the history, which relies on the
	// etcdtrace contract that OutcomeFail means the operation did not happen
	// (the client must record ambiguous errors, such as etcd's "request
	// timed out" or "leader changed", as OutcomeUnknown). Dropping catches
	// more bugs: a write reported as failed that nevertheless took effect.
	FailedWritesMayApply bool
	// MaxVisualizedKeys caps how many failing keys are kept for the
	// visualization and the offenses; 0 means 10.
	MaxVisualizedKeys int
}

// ErrNoVisualization is returned by WriteVisualization when the check has
// not found a violation, so there is nothing to show.
var ErrNoVisualization = errors.New("linearizability: no failure to visualize")

// Linearizability checks that the etcd KV history that clients record
// (etcdtrace.Call and etcdtrace.Return events) is linearizable (Herlihy and
// Wing, 1990) against KVModel, with porcupine. etcd promises strict
// serializability for KV calls (https://etcd.io/docs/v3.5/learning/api_guarantees/),
// which for single-key operations is linearizability.
//
// A call's interval runs from its Call event's virtual time to its Return
// event's. How failed, timed-out and unanswered calls enter the history is
// described in LinearizabilityOptions.FailedWritesMayApply and on KVOutput:
// reads without an OK answer are dropped; a write without an answer
// (timeout, or no Return by the end of the run) may take effect at any
// time after its call, or never.
//
// The history is checked key by key (a history is linearizable exactly when
// each key's is), in key order, at Finish.
type Linearizability struct {
	opts LinearizabilityOptions
	hist kvHistory
	info *porcupine.LinearizationInfo
}

// NewLinearizability returns the "linearizability" check.
func NewLinearizability(opts LinearizabilityOptions) *Linearizability {
	if opts.MaxVisualizedKeys <= 0 {
		opts.MaxVisualizedKeys = 10
	}
	return &Linearizability{opts: opts, hist: newKVHistory()}
}

// Name implements Check.
func (c *Linearizability) Name() string { return "linearizability" }

// Observe implements Check.
func (c *Linearizability) Observe(e *sim.Event) {
	if e.Kind != sim.KindNode {
		return
	}
	switch d := e.Data.(type) {
	case *etcdtrace.Call:
		c.hist.observeCall(e, d)
	case *etcdtrace.Return:
		c.hist.observeReturn(e, d)
	}
}

// Finish implements Check. It runs porcupine on each key's history.
func (c *Linearizability) Finish() Result {
	keys, parts, src, st := c.hist.operations(c.opts.FailedWritesMayApply)
	var illegal, unknown []int
	for i, part := range parts {
		switch porcupine.CheckOperationsTimeout(KVModel, part, c.opts.Timeout) {
		case porcupine.Illegal:
			illegal = append(illegal, i)
		case porcupine.Unknown:
			unknown = append(unknown, i)
		}
	}
	summary := fmt.Sprintf("%d ops on %d keys (%d reads, %d writes of which %d with unknown outcome; dropped %d unanswered reads, %d failed writes)",
		st.reads+st.writes, st.keys, st.reads, st.writes, st.unknownWrites, st.droppedReads, st.droppedWrites)
	switch {
	case len(illegal) > 0:
		offs := c.explain(keys, parts, src, illegal)
		return Result{Name: c.Name(), OK: false, Offenses: offs,
			Detail: fmt.Sprintf("not linearizable on %d of %d keys (%s); first: %s", len(illegal), len(keys),
				keyList(keys, illegal), offs[0].What)}
	case len(unknown) > 0:
		return Result{Name: c.Name(), OK: false,
			Detail: fmt.Sprintf("linearizability unknown: porcupine timed out after %v on %d keys (%s); %s",
				c.opts.Timeout, len(unknown), keyList(keys, unknown), summary)}
	}
	if c.hist.orphans > 0 {
		summary += fmt.Sprintf("; ignored %d returns without a call", c.hist.orphans)
	}
	return Result{Name: c.Name(), OK: true, Detail: "linearizable: " + summary}
}

// explain re-runs porcupine verbosely on the failing keys (up to
// MaxVisualizedKeys), keeps the result for WriteVisualization, and returns
// one offense per failing key.
func (c *Linearizability) explain(keys []string, parts [][]porcupine.Operation, src [][]int, illegal []int) []Offense {
	if len(illegal) > c.opts.MaxVisualizedKeys {
		illegal = illegal[:c.opts.MaxVisualizedKeys]
	}
	var combined []porcupine.Operation
	for _, p := range illegal {
		for j, op := range parts[p] {
			o := c.hist.ops.at(src[p][j])
			op.Metadata = fmt.Sprintf("%s op %d (event %d)", c.hist.clients[o.client], o.op, o.callSeq)
			combined = append(combined, op)
		}
	}
	_, info := porcupine.CheckOperationsVerbose(KVModel, combined, c.opts.Timeout)
	c.info = &info
	partials := info.PartialLinearizations()
	var offs []Offense
	for n, p := range illegal {
		if n >= len(partials) || len(offs) >= MaxOffenses {
			break
		}
		offs = append(offs, c.offense(keys[p], parts[p], src[p], partials[n]))
	}
	return offs
}

// offense describes why one key failed: the longest linearizable prefix
// porcupine found, the state it leaves, and the first-returning operation
// that no order could fit after it.
func (c *Linearizability) offense(key string, part []porcupine.Operation, src []int, partials [][]int) Offense {
	prefix, state, culprit := explainFailure(KVModel, part, partials)
	if culprit < 0 {
		return Offense{What: fmt.Sprintf("linearizability: key %q has no linearization", key)}
	}
	o := c.hist.ops.at(src[culprit])
	at, seq := o.call, o.callSeq
	if o.returned {
		at, seq = o.ret, o.retSeq
	}
	ret := "never"
	if part[culprit].Return != math.MaxInt64 {
		ret = o.ret.String()
	}
	return Offense{At: at, Seq: seq, What: fmt.Sprintf(
		"linearizability: key %q: after %d linearized ops (value %s), no order fits %s by %s op %d [called %v, returned %s]",
		key, len(prefix), KVModel.DescribeState(state), KVModel.DescribeOperation(part[culprit].Input, part[culprit].Output),
		c.hist.clients[o.client], o.op, o.call, ret)}
}

// WriteVisualization writes porcupine's HTML visualization of the failing
// keys' histories, with the longest partial linearizations it found. It
// returns ErrNoVisualization unless Finish found a violation.
func (c *Linearizability) WriteVisualization(w io.Writer) error {
	if c.info == nil {
		return ErrNoVisualization
	}
	return porcupine.Visualize(KVModel, *c.info, w)
}

// keyList quotes the chosen keys, at most five.
func keyList(keys []string, idx []int) string {
	var b strings.Builder
	for n, i := range idx {
		if n == 5 {
			fmt.Fprintf(&b, ", ... %d more", len(idx)-n)
			break
		}
		if n > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", keys[i])
	}
	return b.String()
}

var _ Check = (*Linearizability)(nil)
