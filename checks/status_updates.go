package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// StatusUpdates checks the status workload: writers update one object's
// spec (update) and its status (update-status, the status subresource)
// concurrently, each a read-modify-write under RetryOnConflict. The API
// server must honour resourceVersion on both, and keep them apart: an
// update keeps the stored status and an update-status the stored spec,
// whatever the body says (in Kubernetes, the resource's strategy and its
// status strategy, e.g. rsStrategy and rsStatusStrategy's PrepareForUpdate
// in pkg/registry/apps/replicaset/strategy.go).
//
// The workload contract, as apitrace records it (apiload.StatusValueOf):
//   - an object of the workload has the Value "<spec>/<status>", two
//     decimal integers: its spec counter and its status counter;
//   - a spec write is an update whose precondition is the resourceVersion
//     read and whose spec is the one read + 1; the status it sends is junk,
//     a value no status write sends;
//   - a status write is an update-status likewise, with the status read + 1
//     and a junk spec;
//   - the object starts at the Value of its first acknowledged create (the
//     answer's: the server resets the status on create), or 0/0.
//
// It requires:
//   - no lost write, for each counter: with base its value at creation,
//     acked its writes answered 2xx and unknown those with no answer or a
//     5xx other than 503, base + acked <= final <= base + acked + unknown,
//     where final is the object's item in the last apitrace.ServerState of
//     its resource or, without one, the last 2xx quorum get;
//   - a resourceVersion is matched once: no two acknowledged writes of the
//     object (of the spec or of the status) have the same precondition, and
//     no two acknowledged writes of one counter wrote the same value;
//   - spec and status stay apart: every state of the object that a 2xx
//     answer or the final server state shows has a spec that an update (or
//     the create) sent and a status that an update-status sent (or its
//     initial one), so a junk half that reached etcd is caught.
type StatusUpdates struct {
	objs  map[string]*statusObj // partition key (resource/key)
	calls map[callID]statusCall
	final map[string]*finalSeen // resource -> last ServerState items
	rec   earliestOffenses
}

// statusObj is what the check knows of one object of the workload.
type statusObj struct {
	resource, key  string
	created        bool
	base           [2]int64 // spec, status at creation
	halves         [2]halfLedger
	byPrecond      map[string]ackRef // precondition -> first acknowledged write
	read           bool              // a 2xx quorum get was seen
	readValue      string
	readAt         sim.Time
	readSeq        uint64
	pending        [2]int
	observedStates int
}

// halfLedger is one counter (spec or status) of an object.
type halfLedger struct {
	writeTally
	sent    map[int64]bool   // values sent by its own verb
	junk    map[int64]ackRef // values sent by the other verb
	byValue map[int64]ackRef // value -> first acknowledged write
}

// The halves of an object.
const (
	specHalf   = 0
	statusHalf = 1
)

// APIUpdateStatus is the verb of the status subresource's update, as
// apitrace.Call records it.
const APIUpdateStatus = "update-status"

var halfNames = [2]string{"spec", "status"}

// statusCall is one call of the workload in flight.
type statusCall struct {
	pk      string
	verb    string
	value   [2]int64
	precond string
}

// NewStatusUpdates returns the "status-updates" check.
func NewStatusUpdates() *StatusUpdates {
	return &StatusUpdates{objs: map[string]*statusObj{}, calls: map[callID]statusCall{}, final: map[string]*finalSeen{}}
}

// Name implements Check.
func (c *StatusUpdates) Name() string { return "status-updates" }

// parseSpecStatus parses "<spec>/<status>".
func parseSpecStatus(v string) ([2]int64, bool) {
	a, b, ok := strings.Cut(v, "/")
	if !ok {
		return [2]int64{}, false
	}
	x, err1 := strconv.ParseInt(a, 10, 64)
	y, err2 := strconv.ParseInt(b, 10, 64)
	return [2]int64{x, y}, err1 == nil && err2 == nil
}

func (c *StatusUpdates) obj(resource, key string) *statusObj {
	pk := resource + "/" + key
	return getOrNew(c.objs, pk, func() *statusObj {
		o := &statusObj{resource: resource, key: key, byPrecond: map[string]ackRef{}}
		for i := range o.halves {
			o.halves[i] = halfLedger{sent: map[int64]bool{}, junk: map[int64]ackRef{}, byValue: map[int64]ackRef{}}
		}
		return o
	})
}

// writeHalf is the half a verb writes, or -1.
func writeHalf(verb string) int {
	switch verb {
	case APIUpdate:
		return specHalf
	case APIUpdateStatus:
		return statusHalf
	}
	return -1
}

// Observe implements Check.
func (c *StatusUpdates) Observe(e *sim.Event) { observeAPIWorkload(c, c.calls, e) }

// serverState keeps a server's final state of a resource and judges the
// objects of the workload in it.
func (c *StatusUpdates) serverState(e *sim.Event, d *apitrace.ServerState) {
	f := &finalSeen{items: map[string]string{}, at: e.At, seq: e.Seq}
	for _, it := range d.Items {
		f.items[it.Key] = it.Value
		if o := c.objs[d.Resource+"/"+it.Key]; o != nil {
			c.observe(e, o, it.Value, "the server state")
		}
	}
	c.final[d.Resource] = f
}

// call is what the check keeps of a call of the workload, or false for
// another call.
func (c *StatusUpdates) call(d *apitrace.Call) (statusCall, bool) {
	pk := d.Resource + "/" + d.Key
	sc := statusCall{pk: pk, verb: d.Verb, precond: d.Precondition}
	v, ok := parseSpecStatus(d.Value)
	switch h := writeHalf(d.Verb); {
	case h >= 0 && ok && d.Precondition != "":
		o := c.obj(d.Resource, d.Key)
		o.pending[h]++
		o.halves[h].sent[v[h]] = true
		if _, seen := o.halves[1-h].junk[v[1-h]]; !seen {
			o.halves[1-h].junk[v[1-h]] = ackRef{client: d.Client, op: d.Op}
		}
	case d.Verb == APICreate && ok:
		o := c.obj(d.Resource, d.Key)
		o.halves[specHalf].sent[v[specHalf]] = true
	case d.Verb == APIGet && d.RV == "" && c.objs[pk] != nil:
	default:
		return sc, false
	}
	sc.value = v
	return sc, true
}

// ret settles a call of the workload.
func (c *StatusUpdates) ret(e *sim.Event, d *apitrace.Return, sc statusCall) {
	o := c.objs[sc.pk]
	if ok2xx(d.Code) && d.Found {
		c.observe(e, o, d.Value, fmt.Sprintf("the answer to %s op %d (%s)", d.Client, d.Op, sc.verb))
	}
	switch h := writeHalf(sc.verb); {
	case sc.verb == APICreate:
		if ok2xx(d.Code) && !o.created {
			o.created = true
			o.base = sc.value
			if v, ok := parseSpecStatus(d.Value); ok && d.Found {
				o.base = v
			}
			o.halves[specHalf].sent[o.base[specHalf]] = true
		}
	case sc.verb == APIGet:
		if ok2xx(d.Code) && d.Found {
			o.read, o.readValue, o.readAt, o.readSeq = true, d.Value, e.At, e.Seq
		}
	case h >= 0:
		o.pending[h]--
		c.settle(e, o, h, d.Client, d.Op, sc, d.Code)
	}
}

// settle records how a write of half h ended.
func (c *StatusUpdates) settle(e *sim.Event, o *statusObj, h int, client string, op uint64, sc statusCall, code int) {
	hf := &o.halves[h]
	if !hf.count(code) {
		return
	}
	ref := ackRef{client, op, e.At}
	if prev, dup := firstAck(o.byPrecond, sc.precond, ref); dup {
		c.rec.add(e.At, e.Seq, "lost update on %s %q: %s op %d and %s op %d (%s) were both acknowledged with precondition resourceVersion %s",
			o.resource, o.key, prev.client, prev.op, client, op, sc.verb, sc.precond)
	}
	if prev, dup := firstAck(hf.byValue, sc.value[h], ref); dup {
		c.rec.add(e.At, e.Seq, "lost %s update on %s %q: %s %d was written twice, by %s op %d (acknowledged at %v) and %s op %d",
			halfNames[h], o.resource, o.key, halfNames[h], sc.value[h], prev.client, prev.op, prev.at, client, op)
	}
}

// observe checks one state of o that the trace shows: each half must have
// been sent by its own verb.
func (c *StatusUpdates) observe(e *sim.Event, o *statusObj, value, where string) {
	v, ok := parseSpecStatus(value)
	if !ok {
		return
	}
	o.observedStates++
	for h := range o.halves {
		hf := &o.halves[h]
		if v[h] == o.base[h] || hf.sent[v[h]] {
			continue
		}
		verb, other := "update", "update-status"
		if h == statusHalf {
			verb, other = "update-status", "update"
		}
		from := "no call sent it"
		if ref, isJunk := hf.junk[v[h]]; isJunk {
			from = fmt.Sprintf("it is what %s op %d sent to %s", ref.client, ref.op, other)
		}
		c.rec.add(e.At, e.Seq, "%s %q: %s shows %s %d, which no %s sent (%s): a write of the other half changed the %s",
			o.resource, o.key, where, halfNames[h], v[h], verb, from, halfNames[h])
	}
}

// Finish implements Check.
func (c *StatusUpdates) Finish() Result {
	var objs, checked int
	var sum [2]writeTally
	for _, pk := range sim.SortedKeys(c.objs) {
		o := c.objs[pk]
		active := false
		for h := range o.halves {
			o.halves[h].unknown += int64(o.pending[h]) // never answered
			hf := o.halves[h]
			sum[h].add(hf.writeTally)
			active = active || hf.writes() > 0
		}
		if !active {
			continue
		}
		objs++
		value, at, seq, found := c.finalOf(o)
		if !found {
			continue
		}
		v, ok := parseSpecStatus(value)
		if !ok {
			c.rec.add(at, seq, "%s %q: final value %q is not <spec>/<status>", o.resource, o.key, value)
			continue
		}
		checked++
		for h := range o.halves {
			hf := o.halves[h]
			lo, hi := hf.bounds(o.base[h])
			switch {
			case v[h] < lo:
				c.rec.add(at, seq, "lost %s update on %s %q: final %s %d < %d (start %d + %d acknowledged writes): %d acknowledged write(s) lost",
					halfNames[h], o.resource, o.key, halfNames[h], v[h], lo, o.base[h], hf.acked, lo-v[h])
			case v[h] > hi:
				c.rec.add(at, seq, "%s %q: final %s %d > %d (start %d + %d acknowledged + %d unknown-outcome writes): a write applied twice or a failed one applied",
					o.resource, o.key, halfNames[h], v[h], hi, o.base[h], hf.acked, hf.unknown)
			}
		}
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d object(s), %d checked against their final state: spec %d acknowledged, %d unknown-outcome, %d failed; status %d acknowledged, %d unknown-outcome, %d failed; spec and status kept apart",
		objs, checked, sum[specHalf].acked, sum[specHalf].unknown, sum[specHalf].failed, sum[statusHalf].acked, sum[statusHalf].unknown, sum[statusHalf].failed))
}

// finalOf is o's final value: its item in the last server state of its
// resource, or its last quorum read. A missing one is an offense when
// writes were acknowledged.
func (c *StatusUpdates) finalOf(o *statusObj) (string, sim.Time, uint64, bool) {
	if f := c.final[o.resource]; f != nil {
		if v, ok := f.items[o.key]; ok {
			return v, f.at, f.seq, true
		}
		c.rec.add(f.at, f.seq, "%s %q is missing from the final server state (%d spec and %d status acknowledged writes)",
			o.resource, o.key, o.halves[specHalf].acked, o.halves[statusHalf].acked)
		return "", 0, 0, false
	}
	if o.read {
		return o.readValue, o.readAt, o.readSeq, true
	}
	if o.halves[specHalf].acked+o.halves[statusHalf].acked > 0 {
		c.rec.add(0, 0, "%s %q: no final value (no apitrace.ServerState of %s and no quorum read) to account for its acknowledged writes",
			o.resource, o.key, o.resource)
	}
	return "", 0, 0, false
}

var _ Check = (*StatusUpdates)(nil)
