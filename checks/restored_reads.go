package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// RestoredReads judges everything the members of a cluster restored from
// a backup (etcdtrace.Restore, `etcdutl snapshot restore`) serve, as they
// serve it: every Range answer (etcdtrace.ServedRange) and every watch
// response (etcdtrace.ServedWatch) of a member that traces them
// (etcd.Config.TraceServed). The restored cluster's committed history is
// the snapshot's keys, each at its mod revision, and the entries its
// members applied since (etcdtrace.Apply); against it:
//
//   - a Range at revision r (the one asked for, or the header revision of
//     a current read) returns exactly the committed keys at r: their
//     count, and the first Limit of them (their StateHash);
//   - every watch event is the committed change of its key at its
//     revision;
//   - nothing is served below the revision the restore compacted to (the
//     snapshot's, or the bumped one with --mark-compacted): the restored
//     member does not have those revisions, so a read there must fail as
//     compacted and a watch from there be canceled;
//   - for a restore from a snapshot, no answer carries a header revision
//     above the snapshot's and at or below the highest revision the lost
//     cluster handed out: those revisions named other states, which
//     clients may have seen (--bump-revision, etcdutl's
//     modifyLatestRevision, is there to skip them).
//
// Each offending answer is reported at its own event. A watch event whose
// revision no restored member has applied yet is judged once one has.
type RestoredReads struct {
	rec      Recorder
	clusters map[uint64]*restoredCluster
	member   map[string]*restoredCluster // restored members
	lostMax  int64                       // highest revision a member not (yet) restored applied
	ranges   int
	events   int
}

// restoredCluster is one restored cluster's history and bounds.
type restoredCluster struct {
	id       uint64
	hist     committedHistory
	snapRev  int64 // the snapshot's revision (0: bootstrapped empty)
	floor    int64 // the restore's compact revision
	lostMax  int64 // the lost cluster's highest revision at the restore
	deferred []servedEvent
}

// servedEvent is a watch event waiting for its revision to be applied.
type servedEvent struct {
	at     sim.Time
	seq    uint64
	member string
	ch     etcdtrace.Change
}

// NewRestoredReads returns the "restored-reads" check.
func NewRestoredReads() *RestoredReads {
	return &RestoredReads{clusters: map[uint64]*restoredCluster{}, member: map[string]*restoredCluster{}}
}

// Name implements Check.
func (c *RestoredReads) Name() string { return "restored-reads" }

// Observe implements Check.
func (c *RestoredReads) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		rc := c.member[d.Member]
		if rc == nil {
			c.lostMax = max(c.lostMax, d.Rev)
			return
		}
		rc.hist.apply(d)
		c.judgeDeferred(rc)
	case *etcdtrace.Restore:
		rc := c.clusters[d.ClusterID]
		if rc == nil {
			rc = &restoredCluster{id: d.ClusterID, hist: restoredHistory(d), snapRev: d.SnapshotRev,
				floor: max(d.CompactRev, 0), lostMax: c.lostMax}
			c.clusters[d.ClusterID] = rc
		}
		c.member[d.Member] = rc
	case *etcdtrace.ServedRange:
		if rc := c.member[d.Member]; rc != nil {
			c.judgeRange(e, rc, d)
		}
	case *etcdtrace.ServedWatch:
		if rc := c.member[d.Member]; rc != nil {
			c.judgeWatch(e, rc, d)
		}
	}
}

// judgeRevision checks a header revision against the lost cluster's.
func (c *RestoredReads) judgeRevision(e *sim.Event, rc *restoredCluster, what string, rev int64) {
	if rc.snapRev > 0 && rev > rc.snapRev && rev <= rc.lostMax {
		c.rec.Add(e, "%s: revision %d of restored cluster %x is one the lost cluster handed out (it reached %d; the snapshot is at %d): clients may have seen another state there",
			what, rev, rc.id, rc.lostMax, rc.snapRev)
	}
}

func (c *RestoredReads) judgeRange(e *sim.Event, rc *restoredCluster, d *etcdtrace.ServedRange) {
	c.ranges++
	what := fmt.Sprintf("%s served range %s", d.Member, rangeText(d.Key, d.End))
	if d.Err != "" {
		return // a failure serves nothing (historical-reads judges a compacted one in the KV layer)
	}
	c.judgeRevision(e, rc, what, d.Rev)
	r := d.At
	if r <= 0 {
		r = d.Rev
	} else if r < rc.floor {
		c.rec.Add(e, "%s at rev %d, below %d, the revision its restore compacted to: it does not have that revision", what, r, rc.floor)
		return
	}
	if r > rc.hist.maxRev {
		return // a revision no member has reached: not an answer the store can give
	}
	want := rc.hist.rangeAt(keyRange{d.Key, d.End}, r)
	n := len(want)
	if d.Limit > 0 {
		n = min(n, int(d.Limit))
	}
	if d.Count != int64(len(want)) || d.Keys != n || d.Hash != etcdtrace.StateHash(want[:n]) {
		c.rec.Add(e, "%s at rev %d: %d keys of %d (hash %016x); the restored cluster's committed state there has %d (the first %d hash %016x)",
			what, r, d.Keys, d.Count, d.Hash, len(want), n, etcdtrace.StateHash(want[:n]))
	}
}

func (c *RestoredReads) judgeWatch(e *sim.Event, rc *restoredCluster, d *etcdtrace.ServedWatch) {
	what := fmt.Sprintf("%s served watch stream %d", d.Member, d.Stream)
	if d.Rev > 0 {
		c.judgeRevision(e, rc, what, d.Rev)
	}
	for _, ch := range d.Events {
		c.events++
		ev := servedEvent{at: e.At, seq: e.Seq, member: d.Member, ch: ch}
		if ch.ModRev > rc.hist.maxRev {
			rc.deferred = append(rc.deferred, ev)
			continue
		}
		c.judgeEvent(rc, ev)
	}
}

// judgeDeferred judges the watch events whose revision is now applied.
func (c *RestoredReads) judgeDeferred(rc *restoredCluster) {
	kept := rc.deferred[:0]
	for _, ev := range rc.deferred {
		if ev.ch.ModRev > rc.hist.maxRev {
			kept = append(kept, ev)
			continue
		}
		c.judgeEvent(rc, ev)
	}
	clear(rc.deferred[len(kept):])
	rc.deferred = kept
}

// judgeEvent checks one watch event against the committed change of its
// key at its revision.
func (c *RestoredReads) judgeEvent(rc *restoredCluster, ev servedEvent) {
	e := &sim.Event{At: ev.at, Seq: ev.seq}
	ch := &ev.ch
	what := fmt.Sprintf("%s served watch event %s", ev.member, changeText(ch))
	if ch.ModRev <= rc.floor {
		c.rec.Add(e, "%s at or below %d, the revision its restore compacted to: it does not have that revision", what, rc.floor)
		return
	}
	for _, w := range rc.hist.at(ch.ModRev) {
		if w.Key == ch.Key {
			if w != *ch {
				c.rec.Add(e, "%s, but the restored cluster committed %s there", what, changeText(&w))
			}
			return
		}
	}
	c.rec.Add(e, "%s, which the restored cluster never committed", what)
}

// Finish implements Check.
func (c *RestoredReads) Finish() Result {
	if len(c.clusters) == 0 {
		return c.rec.Result(c.Name(), "no restore")
	}
	return c.rec.Result(c.Name(), fmt.Sprintf("%d ranges and %d watch events served by restored members equal the restored cluster's committed state at their revision; %d events never applied",
		c.ranges, c.events, c.pendingEvents()))
}

// pendingEvents counts the watch events still waiting for their revision.
func (c *RestoredReads) pendingEvents() int {
	n := 0
	for _, id := range sim.SortedKeys(c.clusters) {
		n += len(c.clusters[id].deferred)
	}
	return n
}

var _ Check = (*RestoredReads)(nil)
