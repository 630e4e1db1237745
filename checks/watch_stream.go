package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// maxMissing caps how many undelivered changes a stream remembers in
// detail (so that a late, out-of-order delivery can be recognised); the
// rest are only counted.
const maxMissing = 64

// watchStream is the check's view of one watch stream (Watcher, Stream).
type watchStream struct {
	name string // "watcher/stream"
	open etcdtrace.WatchOpen
	kr   keyRange
	// mustCancel is the serving member's compaction revision when the watch
	// opened, if StartRev was already below it (0 otherwise).
	mustCancel int64

	// anchored is true once next means something: from the open for a
	// known StartRev, else from the first event or progress notification.
	anchored bool
	// next is the lowest revision not yet accounted for: every matching
	// change below it was delivered or recorded as missing.
	next          int64
	firstEventRev int64
	lastEventRev  int64
	progressRev   int64
	progressN     int
	canceled      bool
	// partialRev is a revision that arrived split (already reported);
	// partialKeys are its keys delivered so far.
	partialRev  int64
	partialKeys []string

	missing     []watchMiss
	missingMore int
	pending     []pendingWatchResp

	responses, events int
}

// watchMiss is a matching committed change a stream skipped.
type watchMiss struct {
	rev  int64
	key  string
	at   sim.Time
	seq  uint64
	what string
}

// pendingWatchResp is a response waiting for the history to catch up.
type pendingWatchResp struct {
	at   sim.Time
	seq  uint64
	resp etcdtrace.WatchResp
}

// needs is the highest revision a response's check reads.
func needs(d *etcdtrace.WatchResp) int64 {
	n := int64(0)
	if d.Progress {
		n = d.Rev
	}
	for i := range d.Events {
		n = max(n, d.Events[i].ModRev)
	}
	return n
}

// streamChecker checks the responses of streams against the committed
// history, reporting into offs.
type streamChecker struct {
	hist *committedHistory
	offs *earliestOffenses
	want []etcdtrace.Change // scratch
}

// check verifies one response on stream s.
func (c *streamChecker) check(s *watchStream, at sim.Time, seq uint64, d *etcdtrace.WatchResp) {
	s.responses++
	if s.canceled {
		c.offs.add(at, seq, "Canceled: stream %s got a response after its cancellation", s.name)
		return
	}
	if d.Canceled {
		c.checkCancel(s, at, seq, d)
		return
	}
	if s.mustCancel > 0 && len(d.Events) > 0 {
		c.offs.add(at, seq, "Resumable: stream %s from rev %d was not canceled although member %s had compacted to %d",
			s.name, s.open.StartRev, s.open.Member, s.mustCancel)
		s.mustCancel = 0
	}
	for i := 0; i < len(d.Events); {
		j := i + 1
		for j < len(d.Events) && d.Events[j].ModRev == d.Events[i].ModRev {
			j++
		}
		c.checkRevision(s, at, seq, d.Events[i:j])
		i = j
	}
	if d.Progress {
		c.checkProgress(s, at, seq, d.Rev)
	}
}

func (c *streamChecker) checkCancel(s *watchStream, at sim.Time, seq uint64, d *etcdtrace.WatchResp) {
	s.canceled = true
	if d.CompactRev == 0 {
		return
	}
	if s.open.StartRev <= 0 || s.open.StartRev >= d.CompactRev {
		c.offs.add(at, seq, "Resumable: stream %s from rev %d canceled as compacted at %d, but its start is not below that",
			s.name, s.open.StartRev, d.CompactRev)
	} else if d.CompactRev > c.hist.compact[d.Member] {
		c.offs.add(at, seq, "Resumable: stream %s canceled as compacted at %d, but member %s had compacted only to %d",
			s.name, d.CompactRev, d.Member, c.hist.compact[d.Member])
	}
}

// checkRevision checks one revision's events (one run of equal ModRev).
func (c *streamChecker) checkRevision(s *watchStream, at sim.Time, seq uint64, evs []etcdtrace.Change) {
	r := evs[0].ModRev
	s.events += len(evs)
	if !s.anchored {
		s.anchored, s.next = true, r
	}
	if r < s.next {
		for i := range evs {
			c.checkLate(s, at, seq, &evs[i])
		}
		return
	}
	c.gap(s, at, seq, r-1, r)
	c.want = c.hist.matching(c.want[:0], r, s.kr)
	if !sameChanges(evs, c.want) {
		c.checkContent(s, at, seq, evs)
	}
	if s.firstEventRev == 0 {
		s.firstEventRev = r
	}
	s.lastEventRev, s.next = r, r+1
}

// checkContent explains why a revision's events differ from its matching
// committed changes (in c.want).
func (c *streamChecker) checkContent(s *watchStream, at sim.Time, seq uint64, evs []etcdtrace.Change) {
	r := evs[0].ModRev
	for i := range evs {
		ev := &evs[i]
		for j := range i {
			if evs[j].Key == ev.Key {
				c.offs.add(at, seq, "Unique: stream %s got key %q twice at rev %d in one response", s.name, ev.Key, r)
				return
			}
		}
		if !s.kr.contains(ev.Key) {
			c.offs.add(at, seq, "Valid: stream %s got key %q outside its range", s.name, ev.Key)
			return
		}
		w := findChange(c.want, ev.Key)
		if w == nil {
			c.offs.add(at, seq, "Valid: stream %s got %s, which is not a committed change", s.name, changeText(ev))
			return
		}
		if *w != *ev {
			c.offs.add(at, seq, "Valid: stream %s got %s, but the committed change is %s", s.name, changeText(ev), changeText(w))
			return
		}
	}
	if len(evs) < len(c.want) {
		var lost []string
		for i := range c.want {
			if findChange(evs, c.want[i].Key) == nil {
				lost = append(lost, c.want[i].Key)
			}
		}
		c.offs.add(at, seq, "Atomic: stream %s got revision %d split: %d of its %d matching changes in one response (without %q)",
			s.name, r, len(evs), len(c.want), lost)
		s.partialRev = r
		s.partialKeys = s.partialKeys[:0]
		for i := range evs {
			s.partialKeys = append(s.partialKeys, evs[i].Key)
		}
		return
	}
	c.offs.add(at, seq, "Ordered: stream %s got the changes of revision %d out of order", s.name, r)
}

// checkLate classifies an event at a revision the stream has already
// passed.
func (c *streamChecker) checkLate(s *watchStream, at sim.Time, seq uint64, ev *etcdtrace.Change) {
	r := ev.ModRev
	if r == s.partialRev {
		for _, k := range s.partialKeys {
			if k == ev.Key {
				c.offs.add(at, seq, "Unique: stream %s got %s again", s.name, changeText(ev))
				return
			}
		}
		s.partialKeys = append(s.partialKeys, ev.Key) // the rest of a split revision, already reported
		return
	}
	for i := range s.missing {
		m := &s.missing[i]
		if m.rev == r && m.key == ev.Key {
			s.missing = append(s.missing[:i], s.missing[i+1:]...)
			if r <= s.progressRev && r > s.lastEventRev {
				c.offs.add(at, seq, "Bookmarkable: stream %s got %s after a progress notification at rev %d", s.name, changeText(ev), s.progressRev)
			} else {
				c.offs.add(at, seq, "Ordered: stream %s got %s after an event at rev %d", s.name, changeText(ev), s.lastEventRev)
			}
			return
		}
	}
	// A late event at a folded revision is an offense all the same; what
	// it was is no longer known, so it is classified as a valid one.
	c.want = c.hist.matching(c.want[:0], r, s.kr)
	if w := findChange(c.want, ev.Key); r > c.hist.base && (w == nil || *w != *ev) {
		c.offs.add(at, seq, "Valid: stream %s got %s late, and it is not a committed change in its range", s.name, changeText(ev))
		return
	}
	switch {
	case s.open.StartRev > 0 && r < s.open.StartRev:
		c.offs.add(at, seq, "Resumable: stream %s from rev %d got %s, before its start", s.name, s.open.StartRev, changeText(ev))
	case r <= s.lastEventRev && r >= s.firstEventRev:
		c.offs.add(at, seq, "Unique: stream %s got %s again", s.name, changeText(ev))
	case r <= s.progressRev:
		c.offs.add(at, seq, "Bookmarkable: stream %s got %s after a progress notification at rev %d", s.name, changeText(ev), s.progressRev)
	default:
		c.offs.add(at, seq, "Ordered: stream %s got %s after rev %d", s.name, changeText(ev), s.next-1)
	}
}

// checkProgress checks a progress notification at revision rev.
func (c *streamChecker) checkProgress(s *watchStream, at sim.Time, seq uint64, rev int64) {
	s.progressN++
	s.progressRev = max(s.progressRev, rev)
	if !s.anchored {
		s.anchored, s.next = true, rev+1
		return
	}
	if rev >= s.next {
		c.gap(s, at, seq, rev, 0)
		s.next = rev + 1
	}
}

// gap records every matching change in [s.next, to] as missing. upTo is
// the revision of the event that revealed the gap, or 0 for a progress
// notification at to.
func (c *streamChecker) gap(s *watchStream, at sim.Time, seq uint64, to, upTo int64) {
	from := s.next
	c.hist.eachMatching(from, to, s.kr, func(r int64, cs []etcdtrace.Change) {
		for i := range cs {
			var what string
			switch {
			case upTo == 0:
				what = fmt.Sprintf("Bookmarkable: stream %s never got %s before its progress notification at rev %d", s.name, changeText(&cs[i]), to)
			case s.firstEventRev == 0 && s.open.StartRev > 0 && s.progressN == 0:
				what = fmt.Sprintf("Resumable: stream %s from rev %d never got %s before its first event at rev %d", s.name, s.open.StartRev, changeText(&cs[i]), upTo)
			default:
				what = fmt.Sprintf("Reliable: stream %s never got %s, between rev %d and its event at rev %d", s.name, changeText(&cs[i]), from-1, upTo)
			}
			if len(s.missing) < maxMissing {
				s.missing = append(s.missing, watchMiss{rev: r, key: cs[i].Key, at: at, seq: seq, what: what})
			} else {
				s.missingMore++
				if s.missingMore == 1 {
					c.offs.add(at, seq, "%s (and more: over %d changes missing)", what, maxMissing)
				} else {
					c.offs.count++
				}
			}
		}
	})
}

// finish reports the changes the stream skipped and never got.
func (c *streamChecker) finish(s *watchStream) {
	for _, m := range s.missing {
		c.offs.add(m.at, m.seq, "%s", m.what)
	}
	s.missing = nil
}

func sameChanges(a, b []etcdtrace.Change) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func findChange(cs []etcdtrace.Change, key string) *etcdtrace.Change {
	for i := range cs {
		if cs[i].Key == key {
			return &cs[i]
		}
	}
	return nil
}

func changeText(c *etcdtrace.Change) string { return string(c.AppendText(nil)) }
