package checks

import (
	"fmt"
	"io"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
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
// time after its call, or never. A write without an answer that puts
// values (every put of the workload writes a unique one) none of which any
// member ever applied (etcdtrace.Apply) never took effect and is dropped,
// as etcd's robustness tests drop the requests its WAL never persisted:
// porcupine need not try it everywhere. A member that answered a read with
// such a value would still fail the check, which no write then explains.
//
// The history is checked per key group, a connected component of the keys
// that operations touch together (a history is linearizable exactly when
// each group's is), in order, at Finish.
type Linearizability struct {
	opts LinearizabilityOptions
	hist kvHistory
	run  *linRunner
	// applied holds the FNV-1a hash of every value a member applied a put
	// of (etcdtrace.Apply): a write of unknown outcome none of whose values
	// any member ever applied never took effect. (A hash keeps API objects'
	// large values out of memory; a collision can only keep a write.)
	applied    map[uint64]bool
	sawApplies bool
}

// NewLinearizability returns the "linearizability" check.
func NewLinearizability(opts LinearizabilityOptions) *Linearizability {
	c := &Linearizability{opts: opts, hist: newCallLog[KVInput, kvReturn](), applied: map[uint64]bool{}}
	c.run = newLinRunner(c.Name(), "key group", KVModel, opts.Timeout, opts.MaxVisualizedKeys)
	return c
}

// Name implements Check.
func (c *Linearizability) Name() string { return "linearizability" }

// Observe implements Check.
func (c *Linearizability) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Call:
		c.hist.call(e, d.Client, d.Op, kvInputOf(d))
	case *etcdtrace.Return:
		c.hist.ret(e, d.Client, d.Op, kvReturn{outcome: d.Outcome, out: kvOutputOf(d)})
	case *etcdtrace.Apply:
		c.sawApplies = true
		for _, ch := range d.Changes {
			if ch.Type == etcdtrace.ChangePut {
				c.applied[valueHash(ch.Value)] = true
			}
		}
	}
}

// Finish implements Check. It runs porcupine on each key's history.
func (c *Linearizability) Finish() Result {
	applied := c.applied
	if !c.sawApplies {
		applied = nil // a trace without the members' applies tells nothing
	}
	h, st := kvOperations(&c.hist, c.opts.FailedWritesMayApply, applied)
	summary := fmt.Sprintf("%d ops on %d key groups (%d reads, %d writes of which %d with unknown outcome; dropped %d unanswered reads, %d failed writes",
		st.reads+st.writes, len(h.keys), st.reads, st.writes, st.unknownWrites, st.droppedReads, st.droppedWrites)
	if st.neverApplied > 0 {
		summary += fmt.Sprintf(", %d writes of unknown outcome no member applied", st.neverApplied)
	}
	summary += ")"
	if st.historical > 0 {
		summary += fmt.Sprintf("; %d lists and reads at a past revision left to historical-reads", st.historical)
	}
	return c.run.judge(h, &c.hist, summary, c.hist.orphans)
}

// WriteVisualization writes porcupine's HTML visualization of the failing
// keys' histories, with the longest partial linearizations it found. It
// returns ErrNoVisualization unless Finish found a violation.
func (c *Linearizability) WriteVisualization(w io.Writer) error { return c.run.writeVisualization(w) }

var _ Visualizer = (*Linearizability)(nil)

// kvInputOf is the model's input for a Call. The event is only valid
// during Observe, so its slices are copied.
func kvInputOf(d *etcdtrace.Call) KVInput {
	return KVInput{Kind: d.Kind, Key: d.Key, End: d.End, Rev: d.Rev, Value: d.Value, Expect: d.Expect,
		ExpectAbsent: d.ExpectAbsent, Compares: clone(d.Compares), Ops: clone(d.Ops)}
}

// kvOutputOf is the model's output for a Return.
func kvOutputOf(d *etcdtrace.Return) KVOutput {
	return KVOutput{Found: d.Found, Value: d.Value, Version: d.Version, ModRev: d.ModRev, CreateRev: d.CreateRev,
		Rev: d.Rev, Succeeded: d.Succeeded, KVs: clone(d.KVs)}
}

// clone copies a slice; empty gives nil.
func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append([]T(nil), s...)
}
