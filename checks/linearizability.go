package checks

import (
	"fmt"
	"io"
	"time"

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
	run  *linRunner
}

// NewLinearizability returns the "linearizability" check.
func NewLinearizability(opts LinearizabilityOptions) *Linearizability {
	c := &Linearizability{opts: opts, hist: newCallLog[KVInput, kvReturn]()}
	c.run = newLinRunner(c.Name(), "key", KVModel, opts.Timeout, opts.MaxVisualizedKeys)
	return c
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
		c.hist.call(e, d.Client, d.Op, KVInput{Kind: d.Kind, Key: d.Key, Value: d.Value, Expect: d.Expect, ExpectAbsent: d.ExpectAbsent})
	case *etcdtrace.Return:
		c.hist.ret(e, d.Client, d.Op, kvReturn{outcome: d.Outcome,
			out: KVOutput{Found: d.Found, Value: d.Value, Version: d.Version, Succeeded: d.Succeeded}})
	}
}

// Finish implements Check. It runs porcupine on each key's history.
func (c *Linearizability) Finish() Result {
	h, st := kvOperations(&c.hist, c.opts.FailedWritesMayApply)
	summary := fmt.Sprintf("%d ops on %d keys (%d reads, %d writes of which %d with unknown outcome; dropped %d unanswered reads, %d failed writes)",
		st.reads+st.writes, len(h.keys), st.reads, st.writes, st.unknownWrites, st.droppedReads, st.droppedWrites)
	return c.run.judge(h, &c.hist, summary, c.hist.orphans)
}

// WriteVisualization writes porcupine's HTML visualization of the failing
// keys' histories, with the longest partial linearizations it found. It
// returns ErrNoVisualization unless Finish found a violation.
func (c *Linearizability) WriteVisualization(w io.Writer) error { return c.run.writeVisualization(w) }

var _ Visualizer = (*Linearizability)(nil)
