package checks

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// APIPatch is the verb of a JSON merge patch, as apitrace.Call records it.
const APIPatch = "patch"

// PatchMerge checks the patch workload (apiload.BootPatcher): patchers
// merge-patch one object concurrently, each its own annotation, with
// values that grow by one; some patches carry the resourceVersion the
// patcher last saw as a precondition.
//
// The workload contract, as apitrace records it: a patch call's Value is
// "<patcher>=<n>"; the Value of the object (in answers and in the final
// apitrace.ServerState) lists "<patcher>=<n>" for every patcher's
// annotation, comma-separated. A patcher patches one at a time.
//
// It requires, per object:
//   - a patch merges: every 2xx answer to a patch shows its own value, and
//     every patcher's value that was acknowledged before the patch was
//     sent, or a later one (a patch of a different key never undoes it);
//     a value older than that may only come from a patch whose outcome is
//     unknown (it may land late);
//   - no lost patch: the final state shows each patcher's last
//     acknowledged value, or the value of one of its patches whose outcome
//     is unknown, and never a value whose patch was refused;
//   - a resourceVersion in a patch is a precondition: a patch acknowledged
//     with precondition X that produced version Z replaced version X, so
//     no other write of the object that was answered produced a version
//     between X and Z.
type PatchMerge struct {
	objs  map[string]*patchObj // partition key (resource/key)
	calls map[callID]patchCall
	final map[string]*apitrace.ServerState
	at    map[string]eventPos // resource -> where its final state is
	rec   earliestOffenses
}

// eventPos is an event's virtual time and sequence number.
type eventPos struct {
	at  sim.Time
	seq uint64
}

// patchObj is what the check knows of one patched object.
type patchObj struct {
	resource, key string
	writers       map[string]*patchWriter
	versions      []int64 // resourceVersions of 2xx write answers
	conditional   []condPatch
	acked         int
}

// patchWriter is one patcher's record on one object.
type patchWriter struct {
	lastAcked int64 // 0: none
	unknown   map[int64]bool
	failed    map[int64]bool
}

// condPatch is an acknowledged patch with a precondition.
type condPatch struct {
	client    string
	op        uint64
	from, to  int64
	at        sim.Time
	seq       uint64
	writer    string
	writerVal int64
}

// patchCall is one patch (or get) in flight, with what had been
// acknowledged when it was sent.
type patchCall struct {
	pk       string
	verb     string
	writer   string
	value    int64
	precond  string
	ackedYet map[string]int64
}

// NewPatchMerge returns the "patch-merge" check.
func NewPatchMerge() *PatchMerge {
	return &PatchMerge{objs: map[string]*patchObj{}, calls: map[callID]patchCall{},
		final: map[string]*apitrace.ServerState{}, at: map[string]eventPos{}}
}

// Name implements Check.
func (c *PatchMerge) Name() string { return "patch-merge" }

// parsePatchValues parses "<patcher>=<n>,..." (ok false for anything
// else; "" is no value at all).
func parsePatchValues(v string) (map[string]int64, bool) {
	out := map[string]int64{}
	if v == "" {
		return out, true
	}
	for _, part := range strings.Split(v, ",") {
		name, n, ok := strings.Cut(part, "=")
		x, err := strconv.ParseInt(n, 10, 64)
		if !ok || err != nil || name == "" {
			return nil, false
		}
		out[name] = x
	}
	return out, true
}

func (c *PatchMerge) obj(resource, key string) *patchObj {
	pk := resource + "/" + key
	return getOrNew(c.objs, pk, func() *patchObj {
		return &patchObj{resource: resource, key: key, writers: map[string]*patchWriter{}}
	})
}

func (o *patchObj) writer(name string) *patchWriter {
	return getOrNew(o.writers, name, func() *patchWriter {
		return &patchWriter{unknown: map[int64]bool{}, failed: map[int64]bool{}}
	})
}

// Observe implements Check.
func (c *PatchMerge) Observe(e *sim.Event) { observeAPIWorkload(c, c.calls, e) }

// serverState keeps a server's final state of a resource.
func (c *PatchMerge) serverState(e *sim.Event, d *apitrace.ServerState) {
	cp := *d
	c.final[d.Resource] = &cp
	c.at[d.Resource] = eventPos{e.At, e.Seq}
}

// call is what the check keeps of a patch of the workload or a create of a
// patched object, or false for another call.
func (c *PatchMerge) call(d *apitrace.Call) (patchCall, bool) {
	pk := d.Resource + "/" + d.Key
	pc := patchCall{pk: pk, verb: d.Verb, precond: d.Precondition}
	switch {
	case d.Verb == APIPatch:
		vals, ok := parsePatchValues(d.Value)
		if !ok || len(vals) != 1 {
			return pc, false
		}
		pc.writer = sim.SortedKeys(vals)[0]
		pc.value = vals[pc.writer]
		c.obj(d.Resource, d.Key)
	case d.Verb == APICreate && c.objs[pk] != nil:
	default:
		return pc, false
	}
	o := c.objs[pk]
	pc.ackedYet = make(map[string]int64, len(o.writers))
	for _, w := range sim.SortedKeys(o.writers) {
		if n := o.writers[w].lastAcked; n > 0 {
			pc.ackedYet[w] = n
		}
	}
	return pc, true
}

// ret settles a call.
func (c *PatchMerge) ret(e *sim.Event, d *apitrace.Return, pc patchCall) {
	o := c.objs[pc.pk]
	if ok2xx(d.Code) {
		if rv, ok := parseRV(d.RV); ok {
			o.versions = append(o.versions, rv)
		}
	}
	if pc.verb != APIPatch {
		return
	}
	w := o.writer(pc.writer)
	switch {
	case ok2xx(d.Code):
		o.acked++
		w.lastAcked = max(w.lastAcked, pc.value)
		c.observe(e, o, d.Value, pc, fmt.Sprintf("the answer to %s op %d", d.Client, d.Op))
		if pc.precond != "" {
			from, ok1 := parseRV(pc.precond)
			to, ok2 := parseRV(d.RV)
			if ok1 && ok2 {
				o.conditional = append(o.conditional, condPatch{client: d.Client, op: d.Op, from: from, to: to, at: e.At, seq: e.Seq,
					writer: pc.writer, writerVal: pc.value})
			}
		}
	case unknownOutcome(d.Code):
		w.unknown[pc.value] = true
	default:
		w.failed[pc.value] = true
	}
}

// observe checks a 2xx answer to patch pc: its own value is there, and no
// patcher's value is older than what was acknowledged before pc was sent
// (unless it comes from a patch of unknown outcome).
func (c *PatchMerge) observe(e *sim.Event, o *patchObj, value string, pc patchCall, where string) {
	shown, ok := parsePatchValues(value)
	if !ok {
		c.rec.add(e.At, e.Seq, "%s %q: %s has value %q, not <patcher>=<n>,...", o.resource, o.key, where, value)
		return
	}
	if got, has := shown[pc.writer]; !has || got != pc.value {
		c.rec.add(e.At, e.Seq, "%s %q: %s shows %s=%s, not the %s=%d it patched in", o.resource, o.key, where, pc.writer, shownOf(shown, pc.writer), pc.writer, pc.value)
	}
	for _, w := range sim.SortedKeys(pc.ackedYet) {
		want := pc.ackedYet[w]
		got, has := shown[w]
		if has && (got >= want || o.writer(w).unknown[got]) {
			continue
		}
		c.rec.add(e.At, e.Seq, "lost patch on %s %q: %s shows %s=%s, though %s=%d was acknowledged before the patch was sent",
			o.resource, o.key, where, w, shownOf(shown, w), w, want)
	}
}

// shownOf prints w's value in shown, or "(absent)".
func shownOf(shown map[string]int64, w string) string {
	if n, ok := shown[w]; ok {
		return strconv.FormatInt(n, 10)
	}
	return "(absent)"
}

// Finish implements Check.
func (c *PatchMerge) Finish() Result {
	for _, id := range sortedCallIDs(c.calls) { // never answered: unknown
		if pc := c.calls[id]; pc.verb == APIPatch {
			c.objs[pc.pk].writer(pc.writer).unknown[pc.value] = true
		}
	}
	checked, conditional := 0, 0
	acked := 0
	for _, pk := range sim.SortedKeys(c.objs) {
		o := c.objs[pk]
		acked += o.acked
		c.checkPreconditions(o)
		conditional += len(o.conditional)
		if c.checkFinal(o) {
			checked++
		}
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d patched object(s), %d checked against their final state: %d acknowledged patches (%d with a precondition) merged, none lost",
		len(c.objs), checked, acked, conditional))
}

// checkPreconditions: an acknowledged conditional patch replaced the
// version it named.
func (c *PatchMerge) checkPreconditions(o *patchObj) {
	for _, cp := range o.conditional {
		for _, v := range o.versions {
			if v > cp.from && v < cp.to {
				c.rec.add(cp.at, cp.seq, "%s %q: %s op %d (%s=%d) was applied with precondition resourceVersion %d, though the object had become version %d before it produced %d",
					o.resource, o.key, cp.client, cp.op, cp.writer, cp.writerVal, cp.from, v, cp.to)
				break
			}
		}
	}
}

// checkFinal compares o's final state with its patchers' records, and
// reports whether there was one.
func (c *PatchMerge) checkFinal(o *patchObj) bool {
	st := c.final[o.resource]
	if st == nil {
		if o.acked > 0 {
			c.rec.add(0, 0, "%s %q: no final server state to account for its %d acknowledged patches", o.resource, o.key, o.acked)
		}
		return false
	}
	at, seq := c.at[o.resource].at, c.at[o.resource].seq
	var value string
	found := false
	for _, it := range st.Items {
		if it.Key == o.key {
			value, found = it.Value, true
		}
	}
	if !found {
		if o.acked > 0 {
			c.rec.add(at, seq, "%s %q is missing from the final server state (%d acknowledged patches)", o.resource, o.key, o.acked)
		}
		return false
	}
	shown, ok := parsePatchValues(value)
	if !ok {
		c.rec.add(at, seq, "%s %q: final value %q is not <patcher>=<n>,...", o.resource, o.key, value)
		return true
	}
	for _, name := range sim.SortedKeys(o.writers) {
		w := o.writers[name]
		got, has := shown[name]
		switch {
		case has && w.unknown[got]:
		case has && w.failed[got]:
			c.rec.add(at, seq, "%s %q: the final state shows %s=%d, whose patch was refused", o.resource, o.key, name, got)
		case w.lastAcked > 0 && (!has || got != w.lastAcked):
			c.rec.add(at, seq, "lost patch on %s %q: the final state shows %s=%s, not its last acknowledged %s=%d",
				o.resource, o.key, name, shownOf(shown, name), name, w.lastAcked)
		}
	}
	return true
}

var _ Check = (*PatchMerge)(nil)

// sortedCallIDs returns the keys of calls in (client, op) order.
func sortedCallIDs[V any](calls map[callID]V) []callID {
	ids := make([]callID, 0, len(calls))
	// determinism: sorted below.
	for id := range calls {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b callID) int {
		if a.client != b.client {
			return strings.Compare(a.client, b.client)
		}
		return cmp.Compare(a.op, b.op)
	})
	return ids
}
