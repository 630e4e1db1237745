package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// NoLostUpdates checks the counter workload: concurrent writers increment
// integer counters stored as API objects, each with a read-modify-write
// under RetryOnConflict, and the final state must account for every
// acknowledged increment.
//
// The workload contract, as apitrace records it:
//   - a counter is an object (resource and key) that receives update calls
//     whose Value is a decimal integer and whose Precondition is the
//     resourceVersion of the object the writer read: the value written is
//     that object's value + 1;
//   - the counter starts at the Value of its first acknowledged create
//     (a decimal integer), or at 0 when it was never created through a
//     traced call;
//   - its final value is the Value of its item in the last
//     apitrace.ServerState of its resource or, when no ServerState of the
//     resource was emitted, of the last 2xx quorum get (resourceVersion "")
//     of it; either must come after the writers stopped.
//
// With base the starting value, acked the increments answered 2xx and
// unknown those with no answer or a 5xx other than 503 (they may or may
// not have applied), the check requires base + acked <= final <= base +
// acked + unknown, and that no two acknowledged increments share a
// precondition (a resourceVersion can be matched once) or wrote the same
// value (counter values only grow, so both writes took effect on top of
// the same count: one overwrote the other). A counter with acknowledged
// increments and no final value fails too.
type NoLostUpdates struct {
	counters map[string]*counter // partition key (resource/key) -> counter
	calls    map[callID]counterCall
	final    map[string]*finalSeen // resource -> last ServerState items
	rec      earliestOffenses
}

// counter is one counter's record.
type counter struct {
	resource, key string
	base          int64
	created       bool
	writeTally
	byPrecond    map[string]ackRef // precondition -> first ack
	byValue      map[string]ackRef // value -> first ack
	readValue    string            // last 2xx quorum get
	read         bool
	readAt       sim.Time
	readSeq      uint64
	pendingCalls int
}

type counterCall struct {
	pk      string
	verb    string
	value   string
	precond string
}

type finalSeen struct {
	items map[string]string // key -> value
	at    sim.Time
	seq   uint64
}

// NewNoLostUpdates returns the "no-lost-updates" check.
func NewNoLostUpdates() *NoLostUpdates {
	return &NoLostUpdates{counters: map[string]*counter{}, calls: map[callID]counterCall{}, final: map[string]*finalSeen{}}
}

// Name implements Check.
func (c *NoLostUpdates) Name() string { return "no-lost-updates" }

func (c *NoLostUpdates) counter(resource, key string) *counter {
	pk := resource + "/" + key
	return getOrNew(c.counters, pk, func() *counter {
		return &counter{resource: resource, key: key, byPrecond: map[string]ackRef{}, byValue: map[string]ackRef{}}
	})
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// Observe implements Check.
func (c *NoLostUpdates) Observe(e *sim.Event) { observeAPIWorkload(c, c.calls, e) }

// call is what the check keeps of a call of the workload (an increment or
// a create of a counter, or a quorum read), or false for another call.
func (c *NoLostUpdates) call(d *apitrace.Call) (counterCall, bool) {
	pk := d.Resource + "/" + d.Key
	cc := counterCall{pk: pk, verb: d.Verb, value: d.Value, precond: d.Precondition}
	switch {
	case d.Verb == APIUpdate && d.Precondition != "" && isInt(d.Value):
		c.counter(d.Resource, d.Key).pendingCalls++
	case d.Verb == APICreate && isInt(d.Value):
		c.counter(d.Resource, d.Key)
	case d.Verb == APIGet && d.RV == "": // a quorum read: a final value
	default:
		return cc, false
	}
	return cc, true
}

// ret settles a call of the workload.
func (c *NoLostUpdates) ret(e *sim.Event, d *apitrace.Return, cc counterCall) {
	ct := c.counters[cc.pk]
	if ct == nil { // a get of something that is not (yet) a counter
		return
	}
	switch cc.verb {
	case APIGet:
		if ok2xx(d.Code) && d.Found {
			ct.read, ct.readValue, ct.readAt, ct.readSeq = true, d.Value, e.At, e.Seq
		}
	case APICreate:
		if ok2xx(d.Code) && !ct.created {
			ct.created = true
			ct.base, _ = strconv.ParseInt(cc.value, 10, 64)
		}
	case APIUpdate:
		ct.pendingCalls--
		c.settle(e, ct, d.Client, d.Op, cc, d.Code)
	}
}

// serverState keeps a server's final state of a resource.
func (c *NoLostUpdates) serverState(e *sim.Event, d *apitrace.ServerState) {
	f := &finalSeen{items: map[string]string{}, at: e.At, seq: e.Seq}
	for _, it := range d.Items {
		f.items[it.Key] = it.Value
	}
	c.final[d.Resource] = f
}

// settle records how an increment ended.
func (c *NoLostUpdates) settle(e *sim.Event, ct *counter, client string, op uint64, cc counterCall, code int) {
	if !ct.count(code) {
		return
	}
	ref := ackRef{client, op, e.At}
	if prev, dup := firstAck(ct.byPrecond, cc.precond, ref); dup {
		c.rec.add(e.At, e.Seq, "lost update on counter %s %q: %s op %d and %s op %d were both acknowledged with precondition resourceVersion %s",
			ct.resource, ct.key, prev.client, prev.op, client, op, cc.precond)
	}
	if prev, dup := firstAck(ct.byValue, cc.value, ref); dup {
		c.rec.add(e.At, e.Seq, "lost update on counter %s %q: value %s was written twice, by %s op %d (acknowledged at %v) and %s op %d",
			ct.resource, ct.key, cc.value, prev.client, prev.op, prev.at, client, op)
	}
}

// Finish implements Check.
func (c *NoLostUpdates) Finish() Result {
	var total int64
	var sum writeTally
	checked := 0
	for _, pk := range sim.SortedKeys(c.counters) {
		ct := c.counters[pk]
		ct.unknown += int64(ct.pendingCalls) // never answered
		if ct.writes() == 0 {
			continue // created, never incremented: not a counter
		}
		sum.add(ct.writeTally)
		total++
		var value string
		var at sim.Time
		var seq uint64
		var found bool
		if f := c.final[ct.resource]; f != nil {
			value, found = f.items[ct.key]
			at, seq = f.at, f.seq
			if !found {
				c.rec.add(at, seq, "counter %s %q is missing from the final server state (%d acknowledged increments)", ct.resource, ct.key, ct.acked)
				continue
			}
		} else if ct.read {
			value, at, seq, found = ct.readValue, ct.readAt, ct.readSeq, true
		}
		if !found {
			if ct.acked > 0 {
				c.rec.add(0, 0, "counter %s %q: no final value (no apitrace.ServerState of %s and no quorum read) to account for %d acknowledged increments",
					ct.resource, ct.key, ct.resource, ct.acked)
			}
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			c.rec.add(at, seq, "counter %s %q: final value %q is not an integer", ct.resource, ct.key, value)
			continue
		}
		checked++
		lo, hi := ct.bounds(ct.base)
		switch {
		case n < lo:
			c.rec.add(at, seq, "lost update on counter %s %q: final value %d < %d (start %d + %d acknowledged increments): %d acknowledged increment(s) lost",
				ct.resource, ct.key, n, lo, ct.base, ct.acked, lo-n)
		case n > hi:
			c.rec.add(at, seq, "counter %s %q: final value %d > %d (start %d + %d acknowledged + %d unknown-outcome increments): an increment applied twice or a failed one applied",
				ct.resource, ct.key, n, hi, ct.base, ct.acked, ct.unknown)
		}
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d counter(s), %d checked against their final value: %d acknowledged, %d unknown-outcome and %d failed increments all accounted for",
		total, checked, sum.acked, sum.unknown, sum.failed))
}

var _ Check = (*NoLostUpdates)(nil)
