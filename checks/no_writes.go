package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// Window is a span of virtual time, [From, To).
type Window struct{ From, To sim.Time }

func (w Window) contains(t sim.Time) bool { return t >= w.From && t < w.To }

// NoWritesDuring checks that no write succeeds while a quorum of etcd
// members is down: Raft commits an entry only once a majority has logged it,
// so a write invoked inside such a window cannot be acknowledged before the
// window ends. It is the check of the etcd-majority-down scenario.
type NoWritesDuring struct {
	windows []Window
	calls   map[callRef]sim.Time
	rec     Recorder
	invoked int
}

type callRef struct {
	client string
	op     uint64
}

// NewNoWritesDuring checks the given windows.
func NewNoWritesDuring(windows []Window) *NoWritesDuring {
	return &NoWritesDuring{windows: windows, calls: map[callRef]sim.Time{}}
}

// Name implements Check.
func (c *NoWritesDuring) Name() string { return "no-writes-without-quorum" }

func (c *NoWritesDuring) window(t sim.Time) (Window, bool) {
	for _, w := range c.windows {
		if w.contains(t) {
			return w, true
		}
	}
	return Window{}, false
}

// Observe implements Check.
func (c *NoWritesDuring) Observe(e *sim.Event) {
	switch d := e.Data.(type) {
	case *etcdtrace.Call:
		if d.Kind == etcdtrace.OpGet {
			return
		}
		if _, in := c.window(e.At); in {
			c.calls[callRef{d.Client, d.Op}] = e.At
			c.invoked++
		}
	case *etcdtrace.Return:
		at, ok := c.calls[callRef{d.Client, d.Op}]
		if !ok {
			return
		}
		delete(c.calls, callRef{d.Client, d.Op})
		w, _ := c.window(at)
		if d.Outcome == etcdtrace.OutcomeOK && w.contains(e.At) {
			c.rec.Add(e, "write %s/%d invoked at %v succeeded at %v while a quorum was down (%v to %v)", d.Client, d.Op, at, e.At, w.From, w.To)
		}
	}
}

// Finish implements Check.
func (c *NoWritesDuring) Finish() Result {
	if len(c.windows) == 0 {
		return Result{Name: c.Name(), OK: true, Detail: "no window to check"}
	}
	return c.rec.Result(c.Name(), fmt.Sprintf("0 of %d writes invoked in %d window(s) succeeded", c.invoked, len(c.windows)))
}
