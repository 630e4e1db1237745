package checks

import (
	"fmt"
	"strconv"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// WatchGuarantees checks etcd's documented watch guarantees
// (https://etcd.io/docs/v3.5/learning/api_guarantees/#watch-apis) on every
// watch stream, from etcdtrace.WatchOpen and etcdtrace.WatchResp events,
// against the committed history that etcdtrace.Apply events reveal (the
// first Apply with changes at a revision defines that revision). Each
// offense names the guarantee it breaks:
//
//   - Ordered: events come in revision order; an event never has a lower
//     revision than one already delivered on the stream.
//   - Unique: an event is never delivered twice on a stream.
//   - Atomic: all the matching changes of one revision arrive in one
//     response, never split across responses; and every applied entry
//     (one request: a txn's puts and deletes) changes its keys at one
//     revision, so that its events can arrive together.
//   - Valid (implied by the others): an event is exactly a committed change
//     (type, key, value, create and mod revision, version) whose key is in
//     the watch's range.
//   - Reliable: no gaps; between two events of a stream, every matching
//     committed change is delivered.
//   - Resumable: a watch opened at StartRev gets, as its first events, the
//     matching changes from StartRev on, nothing before StartRev; a start
//     below the serving member's compaction is canceled, and a cancellation
//     names a compact revision above the start that was really applied.
//   - Bookmarkable: a progress notification at revision R means every
//     matching change up to R was already delivered, and later events are
//     above R.
//   - Canceled: nothing arrives on a stream after its cancellation.
//
// Key ranges follow etcd: End "" is the single key, End "\x00" every key >=
// Key, otherwise [Key, End). A watch opened with StartRev 0 ("now") has no
// known start: its first event or progress notification anchors it.
//
// Responses are checked as they arrive (a member applies a revision before
// it can send it, so its Apply is already in the trace); one that refers to
// a revision no Apply has reached yet waits, and is checked at Finish with
// what is then known. Changes skipped by a stream are reported at Finish,
// unless they arrive late (then as Ordered or Bookmarkable). Memory: the
// committed changes of every revision above the fold (see fold), each
// key's latest version below it, plus per-stream counters.
type WatchGuarantees struct {
	hist    committedHistory
	offs    earliestOffenses
	sc      streamChecker
	streams map[watchKey]*watchStream
	order   []*watchStream // every stream, in open order
	waiting []*watchStream // streams with pending responses
	// splitIndex is the highest entry index reported as split across
	// revisions.
	splitIndex uint64
}

// watchKey names a stream.
type watchKey struct {
	watcher string
	stream  uint64
}

// NewWatchGuarantees returns the "watch-guarantees" check.
func NewWatchGuarantees() *WatchGuarantees {
	c := &WatchGuarantees{hist: newCommittedHistory(), streams: map[watchKey]*watchStream{}}
	c.sc = streamChecker{hist: &c.hist, offs: &c.offs}
	return c
}

// Name implements Check.
func (c *WatchGuarantees) Name() string { return "watch-guarantees" }

// Observe implements Check.
func (c *WatchGuarantees) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		c.checkEntry(e, d)
		before := c.hist.maxRev
		c.hist.apply(d)
		if c.hist.maxRev > before && len(c.waiting) > 0 {
			c.drain(false)
		}
		if d.Compact > 0 {
			c.fold()
		}
	case *etcdtrace.WatchOpen:
		s := &watchStream{
			name: d.Watcher + "/" + strconv.FormatUint(d.Stream, 10), open: *d,
			kr: keyRange{key: d.Key, end: d.End},
		}
		if d.StartRev > 0 {
			s.anchored, s.next = true, d.StartRev
			if cr := c.hist.compact[d.Member]; d.StartRev < cr {
				s.mustCancel = cr
			}
		}
		c.streams[watchKey{d.Watcher, d.Stream}] = s
		c.order = append(c.order, s)
	case *etcdtrace.WatchResp:
		s := c.streams[watchKey{d.Watcher, d.Stream}]
		if s == nil {
			c.offs.add(e.At, e.Seq, "Protocol: watch response on stream %s/%d, which was never opened", d.Watcher, d.Stream)
			return
		}
		if len(s.pending) > 0 || needs(d) > c.hist.maxRev {
			if len(s.pending) == 0 {
				c.waiting = append(c.waiting, s)
			}
			r := *d
			r.Events = append([]etcdtrace.Change(nil), d.Events...)
			s.pending = append(s.pending, pendingWatchResp{at: e.At, seq: e.Seq, resp: r})
			return
		}
		c.sc.check(s, e.At, e.Seq, d)
	}
}

// checkEntry checks that an applied entry (one request) changed every
// key at its one revision: otherwise its events could not all arrive in
// one response. Each entry is reported once, at the first member that
// applied it so.
func (c *WatchGuarantees) checkEntry(e *sim.Event, d *etcdtrace.Apply) {
	for i := range d.Changes {
		if d.Changes[i].ModRev == d.Rev {
			continue
		}
		if d.Index > c.splitIndex {
			c.splitIndex = d.Index
			c.offs.add(e.At, e.Seq, "Atomic: member %s applied entry %d as several revisions (%s at rev %d, the entry's revision %d): its events cannot arrive in one response",
				d.Member, d.Index, changeText(&d.Changes[i]), d.Changes[i].ModRev, d.Rev)
		}
		return
	}
}

// drain checks waiting responses whose revisions are now known (all of
// them when final).
func (c *WatchGuarantees) drain(final bool) {
	kept := c.waiting[:0]
	for _, s := range c.waiting {
		n := 0
		for n < len(s.pending) && (final || needs(&s.pending[n].resp) <= c.hist.maxRev) {
			p := &s.pending[n]
			c.sc.check(s, p.at, p.seq, &p.resp)
			n++
		}
		s.pending = s.pending[n:]
		if len(s.pending) > 0 {
			kept = append(kept, s)
		} else {
			s.pending = nil
		}
	}
	c.waiting = kept
}

// Finish implements Check.
func (c *WatchGuarantees) Finish() Result {
	c.drain(true)
	var resps, events, progress, canceled int
	for _, s := range c.order {
		c.sc.finish(s)
		resps += s.responses
		events += s.events
		progress += s.progressN
		if s.canceled {
			canceled++
		}
	}
	ok := fmt.Sprintf("%d streams, %d responses with %d events, %d progress notifications, %d cancellations, over %d revisions with changes: ordered, unique, atomic, reliable, resumable, bookmarkable",
		len(c.order), resps, events, progress, canceled, c.hist.known)
	return c.offs.result(c.Name(), ok)
}

// fold folds the history, at a compaction, below every revision a
// response can still be judged at: the lowest compaction of the members
// (a watch opened below its member's compaction must be canceled, an
// offense otherwise, see watchStream.mustCancel) and the next revision of
// every stream not canceled (its gaps and events start there). A stream
// not yet anchored could start anywhere its member serves, so none is
// folded while one is open; nor while a response waits, whose stream may
// anchor on it. A stream is live until canceled, even once its watcher
// has moved to another one, so that a late response on it is judged as
// before; the folds then wait for it.
func (c *WatchGuarantees) fold() {
	if len(c.waiting) > 0 {
		return
	}
	f := c.hist.minCompact()
	for _, s := range c.order {
		if s.canceled || c.streams[watchKey{s.open.Watcher, s.open.Stream}] != s {
			continue // no response can reach it any more
		}
		if !s.anchored {
			return
		}
		f = min(f, s.next-1)
	}
	c.hist.fold(f)
}

var _ Check = (*WatchGuarantees)(nil)
