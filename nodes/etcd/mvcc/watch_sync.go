package mvcc

import (
	"sort"

	"github.com/kubesim/kubesim/ablation"
)

// watchBatchMaxRevs is etcd's bound on the distinct revisions sent to an
// unsynced watcher in one catch-up response; the rest follows in later ones.
const watchBatchMaxRevs = 1000

// notify hands the events of one committed write to the synced watchers, one
// response each, in watch-ID order (etcd's watchableStore.notify).
//
// evs must be freshly made and referenced nowhere else: the first watcher
// that gets every one of them gets their byte slices as they are, and the
// others get copies, so no two watchers ever share memory.
func (s *Store) notify(rev int64, evs []Event) {
	given := false
	for _, w := range s.watch.watchers {
		if w.state != watcherSynced {
			continue
		}
		n := 0
		for _, ev := range evs {
			if ev.Kv.ModRevision >= w.minRev && w.r.contains(string(ev.Kv.Key)) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		owned := !given && n == len(evs)
		given = given || owned
		mine := evs
		if !owned {
			mine = make([]Event, 0, n)
			for _, ev := range evs {
				if ev.Kv.ModRevision >= w.minRev && w.r.contains(string(ev.Kv.Key)) {
					mine = append(mine, ev)
				}
			}
		}
		s.sendEvents(w, WatchResponse{Events: mine, Revision: rev}, owned)
		w.minRev = rev + 1
	}
}

// SyncWatchers brings the unsynced watchers up to the current revision, as
// etcd's periodic syncWatchers: each gets one response with the events of its
// range from its start revision on (at most watchBatchMaxRevs revisions, header
// revision = current revision) and becomes synced, or is cancelled with the
// compact revision if its start revision has been compacted. Watchers with
// nothing to catch up become synced silently. It returns how many watchers are
// still unsynced (only those with more than watchBatchMaxRevs revisions left).
func (s *Store) SyncWatchers() int {
	cur, compact := s.rev, s.compactRev
	left := 0
	for _, w := range s.watch.watchers {
		if w.state != watcherUnsynced {
			continue
		}
		if w.minRev > cur {
			if !w.restore {
				panic("mvcc: unsynced watcher is ahead of the store")
			}
			// Restored to a revision below the watch's start: nothing to
			// catch up, and its start revision still holds (etcd's
			// chooseAll moves it straight back to synced).
			w.restore = false
			w.state = watcherSynced
			continue
		}
		if w.minRev < compact && s.Ablations.Has(ablation.CompactedWatchSilent) {
			w.minRev = compact // ablation: the compacted changes are skipped silently
		}
		if w.minRev < compact {
			s.watch.queue = append(s.watch.queue, WatchResponse{
				WatchID: w.id, Stream: w.stream, CompactRevision: compact, Canceled: true,
			})
			w.state = watcherCompacted
			continue
		}
		evs, moreRev := s.history(w.r, w.minRev, cur)
		w.minRev = cur + 1
		if moreRev != 0 {
			w.minRev = moreRev
		}
		if len(evs) > 0 {
			s.send(w, WatchResponse{Events: evs, Revision: cur})
		}
		if moreRev != 0 {
			left++
			continue
		}
		w.state = watcherSynced
	}
	return left
}

// Pending returns the number of responses queued for Drain, without syncing.
func (s *Store) Pending() int { return len(s.watch.queue) }

// Drain syncs every unsynced watcher, then returns and forgets the queued
// responses, in the order the store produced them: one write's notifications in
// watch-ID order, then catch-ups and compaction cancels in watch-ID order, with
// progress notifications where they were asked for. For any one watch the
// responses are in revision order, which is etcd's per-stream order.
func (s *Store) Drain() []WatchResponse {
	for s.SyncWatchers() > 0 {
	}
	q := s.watch.queue
	s.watch.queue = nil
	return q
}

// send filters a response for w, adds previous versions if asked, and queues
// it (etcd's watcher.send plus the gRPC layer's prev_kv lookup). Events are
// copied, so that no two responses share memory. A response whose events were
// all filtered out is dropped; send is never called without events.
func (s *Store) send(w *watcher, resp WatchResponse) { s.sendEvents(w, resp, false) }

// sendEvents is send; with owned, the events' byte slices are the caller's
// to give away and are not copied, and so is the Events slice when w keeps
// every event unchanged (no filters, no previous versions); later readers
// of the slice then see only empty keys and values turned to nil, which
// their copies would do anyway.
func (s *Store) sendEvents(w *watcher, resp WatchResponse, owned bool) {
	resp.WatchID, resp.Stream = w.id, w.stream
	if owned && !w.noPut && !w.noDelete && !w.prevKV {
		for i := range resp.Events {
			kv := &resp.Events[i].Kv
			if len(kv.Key) == 0 {
				kv.Key = nil
			}
			if len(kv.Value) == 0 {
				kv.Value = nil
			}
		}
		s.watch.queue = append(s.watch.queue, resp)
		return
	}
	kept := make([]Event, 0, len(resp.Events))
	for _, ev := range resp.Events {
		if (ev.Type == EventPut && w.noPut) || (ev.Type == EventDelete && w.noDelete) {
			continue
		}
		if owned {
			// As clone would: empty gives nil.
			if len(ev.Kv.Key) == 0 {
				ev.Kv.Key = nil
			}
			if len(ev.Kv.Value) == 0 {
				ev.Kv.Value = nil
			}
		} else {
			ev.Kv = ev.Kv.clone()
		}
		kept = append(kept, ev)
	}
	if len(kept) == 0 {
		return
	}
	resp.Events = kept
	if w.prevKV {
		for i := range resp.Events {
			resp.Events[i].PrevKv = s.prevOf(resp.Events[i])
		}
	}
	s.watch.queue = append(s.watch.queue, resp)
}

// prevOf is the version of an event's key at the revision before it, as etcd's
// watch server looks it up: none for a creation, none if that revision is
// compacted.
func (s *Store) prevOf(ev Event) *KeyValue {
	if ev.Type == EventPut && ev.Kv.CreateRevision == ev.Kv.ModRevision {
		return nil
	}
	rr, err := s.rangeKeys(newKeyRange(ev.Kv.Key, nil), RangeOptions{Rev: ev.Kv.ModRevision - 1}, s.rev)
	if err != nil || len(rr.KVs) == 0 {
		return nil
	}
	return &rr.KVs[0]
}

// history returns the events in r with main revision in [from, to], in
// revision order, capped at watchBatchMaxRevs distinct revisions; moreRev is
// the first revision left out, or 0.
func (s *Store) history(r keyRange, from, to int64) ([]Event, int64) {
	type hit struct {
		h   *keyHistory
		rec record
	}
	var hits []hit
	for _, h := range s.ks.span(r) {
		for i := h.from(from); i < len(h.recs) && h.recs[i].main <= to; i++ {
			hits = append(hits, hit{h, h.recs[i]})
		}
	}
	sort.Slice(hits, func(i, j int) bool { return revLess(hits[i].rec, hits[j].rec) })
	var evs []Event
	revs := 0
	for i, x := range hits {
		if i == 0 || x.rec.main != hits[i-1].rec.main {
			revs++
			if revs > watchBatchMaxRevs {
				return evs, x.rec.main
			}
		}
		evs = append(evs, x.h.event(x.rec))
	}
	return evs, 0
}

// watchersRestored moves every synced watcher back to unsynced after Restore,
// as etcd's watchableStore.Restore, so that it catches up on the new history.
func (s *Store) watchersRestored() {
	for _, w := range s.watch.watchers {
		if w.state == watcherSynced {
			w.state = watcherUnsynced
			w.restore = true
		}
	}
}
