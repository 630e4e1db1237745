// Package checks holds kubesim's checkers. A checker subscribes to a
// world's trace, consumes each event as it happens, and gives a verdict at
// the end: a pass, or a failure with the first offending events and their
// virtual times. Checkers read only the trace (and model); they never reach
// into a node's private state.
package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/sim"
)

// Check is one checker.
type Check interface {
	// Name is the check's stable identifier, e.g. "raft-safety".
	Name() string
	// Observe consumes one trace event. The event is only valid during the
	// call.
	Observe(e *sim.Event)
	// Finish gives the verdict once the run is over.
	Finish() Result
}

// Offense is one offending event, kept for the failure report.
type Offense struct {
	At   sim.Time `json:"at_ns"`
	Seq  uint64   `json:"seq"`
	What string   `json:"what"`
}

// MaxOffenses is how many offending events a result keeps.
const MaxOffenses = 5

// Result is a check's verdict.
type Result struct {
	Name     string    `json:"name"`
	OK       bool      `json:"ok"`
	Detail   string    `json:"detail"`
	Offenses []Offense `json:"offenses,omitempty"`
}

// String prints the verdict on one line, then one line per offense.
func (r Result) String() string {
	var b strings.Builder
	verdict := "ok"
	if !r.OK {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%-22s %-4s %s", r.Name, verdict, r.Detail)
	for _, o := range r.Offenses {
		fmt.Fprintf(&b, "\n    at %v (event %d): %s", o.At, o.Seq, o.What)
	}
	return b.String()
}

// Recorder collects offenses for a check: the first MaxOffenses are kept,
// and all are counted.
type Recorder struct {
	Count    int
	Offenses []Offense
}

// Add records an offense at event e.
func (r *Recorder) Add(e *sim.Event, format string, args ...any) {
	r.Count++
	if len(r.Offenses) < MaxOffenses {
		r.Offenses = append(r.Offenses, Offense{At: e.At, Seq: e.Seq, What: fmt.Sprintf(format, args...)})
	}
}

// Result turns the recorder into a verdict: pass with okDetail when nothing
// was recorded.
func (r *Recorder) Result(name, okDetail string) Result {
	if r.Count == 0 {
		return Result{Name: name, OK: true, Detail: okDetail}
	}
	return Result{Name: name, OK: false, Detail: fmt.Sprintf("%d violation(s); first: %s", r.Count, r.Offenses[0].What), Offenses: r.Offenses}
}

// Attach subscribes each check to w's trace.
func Attach(w *sim.World, cs ...Check) {
	for _, c := range cs {
		w.Subscribe(c.Observe)
	}
}

// FinishAll returns the verdict of each check, in order.
func FinishAll(cs ...Check) []Result {
	out := make([]Result, len(cs))
	for i, c := range cs {
		out[i] = c.Finish()
	}
	return out
}

// AllOK reports whether every result passed.
func AllOK(rs []Result) bool {
	for _, r := range rs {
		if !r.OK {
			return false
		}
	}
	return true
}
