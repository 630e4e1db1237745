package clusterstate

import (
	"errors"
	"fmt"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/sim"
)

// Judge decides whether an invariant held over a run's committed history.
// It records each violation with r.Add at the position of what shows it:
// a Version's or a Snapshot's Event().
type Judge func(h *History, r *checks.Recorder)

// InvariantCheck is a check that keeps a History of the run and, at
// Finish, hands it to its Judge: the offenses the judge records are the
// verdict. Make one with Invariant.
type InvariantCheck struct {
	name   string
	judge  Judge
	h      *History
	result *checks.Result
}

// Invariant returns a check named name that judges the run's committed
// history with judge once the run is over, so that an invariant over
// objects (labels, annotations, a custom kind's spec and status) needs
// only a function of the state. Return it from a scenario's Build hook
// (or attach it with checks.Attach) before the world runs.
//
// A stored object that does not decode fails the check, at the change
// that stored it, if the judge read it (History.Err). Beyond that the
// check passes whenever the judge records nothing, even over an empty
// history: a judge whose invariant needs objects to exist (a run whose
// workload never wrote them proves nothing) should record that as an
// offense itself, e.g. at h.Final().Event().
func Invariant(name string, judge Judge) *InvariantCheck {
	return &InvariantCheck{name: name, judge: judge, h: New()}
}

// Name returns the name given to Invariant.
func (c *InvariantCheck) Name() string { return c.name }

// Observe adds the event to the check's History.
func (c *InvariantCheck) Observe(e *sim.Event) { c.h.Observe(e) }

// History returns the history the check keeps, for a caller that wants
// to read it too.
func (c *InvariantCheck) History() *History { return c.h }

// Finish runs the judge over the history (once; later calls return the
// same verdict) and returns its verdict. A pass says the revision it
// held up to and how many objects were written.
func (c *InvariantCheck) Finish() checks.Result {
	if c.result != nil {
		return *c.result
	}
	var r checks.Recorder
	c.judge(c.h, &r)
	var derr *DecodeError
	if errors.As(c.h.Err(), &derr) {
		r.Add(derr.Event(), "%v", derr)
	}
	res := r.Result(c.name, fmt.Sprintf("holds up to revision %d (%d object(s) written)", c.h.Revision(), c.h.objectCount()))
	c.result = &res
	return res
}

// objectCount is how many objects the history has seen written.
func (h *History) objectCount() int {
	n := 0
	for _, res := range sim.SortedKeys(h.byRes) {
		n += len(h.byRes[res].keys)
	}
	return n
}
