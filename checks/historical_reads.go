package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// HistoricalReads checks the KV reads clients record (gets of a key or a
// range, at the current or a past revision, and watchers' lists) against
// the committed history that etcdtrace.Apply events reveal, as etcd's
// robustness tests validate stale reads by replaying the history:
//
//   - Revision: an answer at revision r (the revision asked for, or, for a
//     current read, its header revision) is exactly the committed state
//     at r: the keys that existed then, with their values, mod and create
//     revisions and versions. etcd's MVCC serves a past revision from the
//     versions each key kept (mvcc/kvstore_txn.go, rangeKeys).
//   - Compacted: a read at a past revision r fails with "mvcc: required
//     revision has been compacted" only when some member had applied a
//     compaction above r (reading at the compact revision itself works),
//     and the member that answered a read at r had not compacted above r
//     when the read was sent. The member serves the read at some moment
//     between the Call and the Return, so a compaction it applied in that
//     window may have come after the answer, which is then correct.
//
// A Return with no Call before it is ignored; so is a read whose revision
// no member has applied, which a linearizable read cannot have.
type HistoricalReads struct {
	hist    committedHistory
	offs    earliestOffenses
	pending map[callID]pendingRead
	want    []etcdtrace.Change // scratch
	// maxCompact is the highest compaction any member applied.
	maxCompact int64
	// compactions is each member's compactions in the order applied, so
	// that a read is judged by its member's compaction when it was sent.
	compactions map[string][]compactMark

	current, past, compacted, lists int
}

// NewHistoricalReads returns the "historical-reads" check.
func NewHistoricalReads() *HistoricalReads {
	return &HistoricalReads{hist: newCommittedHistory(), pending: map[callID]pendingRead{},
		compactions: map[string][]compactMark{}}
}

// pendingRead is a read sent and not yet answered.
type pendingRead struct {
	call etcdtrace.Call
	seq  uint64 // the Call event's sequence number
}

// compactMark is a compaction to rev a member applied at event seq.
type compactMark struct {
	seq uint64
	rev int64
}

// compactedBefore is member's compaction revision as of event seq.
func (c *HistoricalReads) compactedBefore(member string, seq uint64) int64 {
	marks := c.compactions[member]
	i := sort.Search(len(marks), func(i int) bool { return marks[i].seq >= seq })
	if i == 0 {
		return 0
	}
	return marks[i-1].rev
}

// Name implements Check.
func (c *HistoricalReads) Name() string { return "historical-reads" }

// Observe implements Check.
func (c *HistoricalReads) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		c.hist.apply(d)
		c.maxCompact = max(c.maxCompact, d.Compact)
		if marks := c.compactions[d.Member]; d.Compact > 0 && (len(marks) == 0 || d.Compact > marks[len(marks)-1].rev) {
			c.compactions[d.Member] = append(marks, compactMark{e.Seq, d.Compact})
		}
	case *etcdtrace.Call:
		if d.Kind == etcdtrace.OpGet || d.Kind == etcdtrace.OpList {
			c.pending[callID{d.Client, d.Op}] = pendingRead{
				call: etcdtrace.Call{Client: d.Client, Op: d.Op, Kind: d.Kind, Key: d.Key, End: d.End, Rev: d.Rev},
				seq:  e.Seq,
			}
		}
	case *etcdtrace.Return:
		p, ok := takeCall(c.pending, d.Client, d.Op)
		if !ok {
			return
		}
		c.judge(e, &p.call, p.seq, d)
	}
}

// judge checks one read's answer.
func (c *HistoricalReads) judge(e *sim.Event, call *etcdtrace.Call, sent uint64, d *etcdtrace.Return) {
	what := fmt.Sprintf("%s op %d %s(%s)", call.Client, call.Op, call.Kind, rangeText(call.Key, call.End))
	if d.Outcome != etcdtrace.OutcomeOK {
		if call.Rev > 0 && d.Err == etcdtrace.ErrCompactedText {
			c.compacted++
			if call.Rev >= c.maxCompact {
				c.offs.add(e.At, e.Seq, "Compacted: %s at rev %d failed as compacted, but no member had compacted past it (the highest compaction: %d)",
					what, call.Rev, c.maxCompact)
			}
		}
		return
	}
	r := call.Rev
	switch {
	case call.Kind == etcdtrace.OpList:
		c.lists++
	case r > 0:
		c.past++
	default:
		c.current++
	}
	if r <= 0 {
		r = d.Rev
	}
	if r <= 0 || r > c.hist.maxRev {
		return
	}
	if cr := c.compactedBefore(d.Member, sent); call.Rev > 0 && call.Rev < cr {
		c.offs.add(e.At, e.Seq, "Compacted: %s at rev %d was answered by %s, which had compacted to %d before the read was sent",
			what, call.Rev, d.Member, cr)
	}
	kr := keyRange{call.Key, call.End}
	c.want = append(c.want[:0], c.hist.rangeAt(kr, r)...)
	got := d.KVs
	if call.End == "" {
		got = nil
		if d.Found {
			got = []etcdtrace.ReadKV{{Key: call.Key, Value: d.Value, Version: d.Version, ModRev: d.ModRev, CreateRev: d.CreateRev}}
		}
	}
	if !sameRead(got, c.want) {
		c.offs.add(e.At, e.Seq, "Revision: %s at rev %d returned %s, but the committed state there is %s",
			what, r, readText(got), changesText(c.want))
	}
}

// sameRead reports whether a read returned exactly the committed keys
// (a value of 0 the read did not record is not compared).
func sameRead(got []etcdtrace.ReadKV, want []etcdtrace.Change) bool {
	if len(got) != len(want) {
		return false
	}
	for i, g := range got {
		w := want[i]
		if g.Key != w.Key || g.Value != w.Value ||
			g.ModRev != 0 && g.ModRev != w.ModRev ||
			g.CreateRev != 0 && g.CreateRev != w.CreateRev ||
			g.Version != 0 && g.Version != w.Version {
			return false
		}
	}
	return true
}

// Finish implements Check.
func (c *HistoricalReads) Finish() Result {
	ok := fmt.Sprintf("%d reads at a past revision, %d current reads and %d lists equal the committed history at their revision; %d reads below a compaction failed as compacted",
		c.past, c.current, c.lists, c.compacted)
	return c.offs.result(c.Name(), ok)
}

// rangeText renders a read's keys: "k" or "k".."l".
func rangeText(key, end string) string {
	if end == "" {
		return fmt.Sprintf("%q", key)
	}
	return fmt.Sprintf("%q..%q", key, end)
}

// readText renders what a read returned.
func readText(kvs []etcdtrace.ReadKV) string {
	if len(kvs) == 0 {
		return "nothing"
	}
	return string(appendKVs(nil, kvs))
}

// changesText renders committed versions of keys.
func changesText(cs []etcdtrace.Change) string {
	if len(cs) == 0 {
		return "empty"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(changeText(&cs[i]))
	}
	b.WriteByte(']')
	return b.String()
}

var _ Check = (*HistoricalReads)(nil)
