package mvcc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// watch creates a watch and fails the test on error.
func watch(t *testing.T, s *Store, req WatchRequest) WatchID {
	t.Helper()
	id, err := s.NewWatch(req)
	require.NoError(t, err)
	return id
}

// putEv and delEv build expected events.
func putEv(k, v string, create, mod, ver int64) Event {
	return Event{Type: EventPut, Kv: kv(k, v, create, mod, ver)}
}

func delEv(k string, mod int64) Event {
	return Event{Type: EventDelete, Kv: KeyValue{Key: b(k), ModRevision: mod}}
}

func TestWatchLiveEventsGroupedByRevision(t *testing.T) {
	s := New()
	all := watch(t, s, WatchRequest{Key: b("a"), End: b("\x00")})
	one := watch(t, s, WatchRequest{Key: b("b")})
	pre := watch(t, s, WatchRequest{Key: b("a"), End: b("b")})
	assert.Equal(t, []WatchID{1, 2, 3}, []WatchID{all, one, pre})

	put(t, s, "a", "1") // 2
	_, err := s.Txn(TxnRequest{Success: []Op{
		OpPutOf(b("b"), b("1"), PutOptions{}),
		OpPutOf(b("aa"), b("1"), PutOptions{}),
		OpDeleteOf(b("a"), nil, false),
	}}) // 3
	require.NoError(t, err)
	put(t, s, "zz", "1") // 4

	want := []WatchResponse{
		{WatchID: all, Revision: 2, Events: []Event{putEv("a", "1", 2, 2, 1)}},
		{WatchID: pre, Revision: 2, Events: []Event{putEv("a", "1", 2, 2, 1)}},
		{WatchID: all, Revision: 3, Events: []Event{putEv("b", "1", 3, 3, 1), putEv("aa", "1", 3, 3, 1), delEv("a", 3)}},
		{WatchID: one, Revision: 3, Events: []Event{putEv("b", "1", 3, 3, 1)}},
		{WatchID: pre, Revision: 3, Events: []Event{putEv("aa", "1", 3, 3, 1), delEv("a", 3)}},
		{WatchID: all, Revision: 4, Events: []Event{putEv("zz", "1", 4, 4, 1)}},
	}
	assert.Equal(t, 6, s.Pending())
	assert.Equal(t, want, s.Drain())
	assert.Empty(t, s.Drain())
}

func TestWatchCatchUpFromPastRevision(t *testing.T) {
	s := New()
	put(t, s, "k", "1") // 2
	put(t, s, "x", "1") // 3
	put(t, s, "k", "2") // 4
	del(t, s, "k", "")  // 5
	id := watch(t, s, WatchRequest{Key: b("k"), StartRev: 3})
	put(t, s, "k", "3") // 6: the watcher is unsynced, so this joins the catch-up
	assert.Equal(t, 0, s.Pending())
	got := s.Drain()
	assert.Equal(t, []WatchResponse{{
		WatchID:  id,
		Revision: 6,
		Events:   []Event{putEv("k", "2", 2, 4, 2), delEv("k", 5), putEv("k", "3", 6, 6, 1)},
	}}, got)

	put(t, s, "k", "4") // 7: now synced, live
	assert.Equal(t, []WatchResponse{{WatchID: id, Revision: 7, Events: []Event{putEv("k", "4", 6, 7, 2)}}}, s.Drain())
}

func TestWatchCatchUpWithNothingToSendIsSilent(t *testing.T) {
	s := New()
	put(t, s, "k", "1")
	put(t, s, "x", "1")
	id := watch(t, s, WatchRequest{Key: b("k"), StartRev: 3})
	assert.False(t, s.RequestProgress(id), "unsynced watchers get no progress")
	assert.Empty(t, s.Drain())
	assert.True(t, s.RequestProgress(id))
	assert.Equal(t, []WatchResponse{{WatchID: id, Revision: 3}}, s.Drain())
}

func TestWatchFromCompactedRevision(t *testing.T) {
	cases := []struct {
		name      string
		startRev  int64
		want      []WatchResponse
		cancelled bool
	}{
		{"below compact revision", 3, []WatchResponse{{WatchID: 1, CompactRevision: 4, Canceled: true}}, true},
		{"at compact revision", 4, []WatchResponse{{WatchID: 1, Revision: 5, Events: []Event{delEv("k", 4), putEv("k", "3", 5, 5, 1)}}}, false},
		{"after compact revision", 5, []WatchResponse{{WatchID: 1, Revision: 5, Events: []Event{putEv("k", "3", 5, 5, 1)}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			put(t, s, "k", "1") // 2
			put(t, s, "k", "2") // 3
			del(t, s, "k", "")  // 4
			put(t, s, "k", "3") // 5
			require.NoError(t, s.Compact(4))
			id := watch(t, s, WatchRequest{Key: b("k"), StartRev: c.startRev})
			assert.Equal(t, c.want, s.Drain())
			put(t, s, "k", "4")
			if c.cancelled {
				assert.Empty(t, s.Drain(), "a compacted watch gets nothing more")
				assert.False(t, s.RequestProgress(id))
				assert.False(t, s.RequestProgressAll(0), "as in etcd, a compacted watcher blocks stream progress")
				assert.NoError(t, s.CancelWatch(id))
				assert.True(t, s.RequestProgressAll(0))
			} else {
				assert.Len(t, s.Drain(), 1)
			}
		})
	}
	t.Run("compaction after the watch was made", func(t *testing.T) {
		s := New()
		put(t, s, "k", "1")
		put(t, s, "k", "2")
		watch(t, s, WatchRequest{Key: b("k"), StartRev: 2})
		require.NoError(t, s.Compact(3))
		assert.Equal(t, []WatchResponse{{WatchID: 1, CompactRevision: 3, Canceled: true}}, s.Drain())
	})
	t.Run("negative start revision", func(t *testing.T) {
		_, err := New().NewWatch(WatchRequest{Key: b("k"), StartRev: -1})
		assert.ErrorIs(t, err, ErrCompacted)
	})
}

func TestWatchPrevKV(t *testing.T) {
	s := New()
	put(t, s, "k", "1") // 2
	put(t, s, "k", "2") // 3
	live := watch(t, s, WatchRequest{Key: b("k"), PrevKV: true})
	past := watch(t, s, WatchRequest{Key: b("k"), StartRev: 2, PrevKV: true})
	require.NoError(t, s.Compact(2))
	del(t, s, "k", "")  // 4
	put(t, s, "k", "3") // 5
	p1, p2 := kv("k", "1", 2, 2, 1), kv("k", "2", 2, 3, 2)
	del4 := KeyValue{Key: b("k"), ModRevision: 4}
	got := s.Drain()
	require.Len(t, got, 3)
	assert.Equal(t, WatchResponse{WatchID: live, Revision: 4, Events: []Event{{Type: EventDelete, Kv: del4, PrevKv: &p2}}}, got[0])
	assert.Equal(t, WatchResponse{WatchID: live, Revision: 5, Events: []Event{putEv("k", "3", 5, 5, 1)}}, got[1], "a creation has no prev kv")
	// The unsynced watcher catches up in one batch at Drain time; start == compact revision is allowed.
	assert.Equal(t, WatchResponse{WatchID: past, Revision: 5, Events: []Event{
		putEv("k", "1", 2, 2, 1),
		{Type: EventPut, Kv: kv("k", "2", 2, 3, 2), PrevKv: &p1},
		{Type: EventDelete, Kv: del4, PrevKv: &p2},
		putEv("k", "3", 5, 5, 1),
	}}, got[2])
	require.NoError(t, s.Compact(4))
	// A catch-up from the compact revision cannot look up the revision before.
	w := watch(t, s, WatchRequest{Key: b("k"), StartRev: 4, PrevKV: true})
	assert.Equal(t, []WatchResponse{{WatchID: w, Revision: 5, Events: []Event{delEv("k", 4), putEv("k", "3", 5, 5, 1)}}}, s.Drain())
}

func TestWatchFilters(t *testing.T) {
	s := New()
	noPut := watch(t, s, WatchRequest{Key: b("k"), NoPut: true})
	noDel := watch(t, s, WatchRequest{Key: b("k"), NoDelete: true})
	put(t, s, "k", "1")
	del(t, s, "k", "")
	assert.Equal(t, []WatchResponse{
		{WatchID: noDel, Revision: 2, Events: []Event{putEv("k", "1", 2, 2, 1)}},
		{WatchID: noPut, Revision: 3, Events: []Event{delEv("k", 3)}},
	}, s.Drain())
}

// TestWatchFutureStartRevision: a watch from a revision still ahead is
// synced, but gets no progress notification until the store reaches its
// start revision (etcd server/storage/mvcc/watchable_store.go,
// progressIfSync: "if rev < w.startRev { return false }"), for one watch
// and for its stream alike.
func TestWatchFutureStartRevision(t *testing.T) {
	s := New()
	id := watch(t, s, WatchRequest{Stream: 3, Key: b("k"), StartRev: 4})
	put(t, s, "k", "1") // 2
	put(t, s, "k", "2") // 3
	assert.False(t, s.RequestProgress(id), "revision 3 is before the watch's start")
	assert.False(t, s.RequestProgressAll(3))
	put(t, s, "k", "3") // 4
	assert.True(t, s.RequestProgress(id), "a future watcher is synced")
	assert.True(t, s.RequestProgressAll(3))
	assert.Equal(t, []WatchResponse{
		{WatchID: id, Stream: 3, Revision: 4, Events: []Event{putEv("k", "3", 2, 4, 3)}},
		{WatchID: id, Stream: 3, Revision: 4},
		{WatchID: InvalidWatchID, Stream: 3, Revision: 4},
	}, s.Drain())
}

func TestWatchProgressAllPerStream(t *testing.T) {
	s := New()
	put(t, s, "k", "1")
	a := watch(t, s, WatchRequest{Stream: 7, Key: b("k")})
	watch(t, s, WatchRequest{Stream: 7, Key: b("k"), StartRev: 1})
	watch(t, s, WatchRequest{Stream: 8, Key: b("k")})
	assert.False(t, s.RequestProgressAll(7), "stream 7 has an unsynced watcher")
	assert.True(t, s.RequestProgressAll(8))
	assert.True(t, s.RequestProgressAll(9), "an empty stream is trivially synced")
	got := s.Drain()
	require.Len(t, got, 2)
	assert.Equal(t, WatchResponse{WatchID: InvalidWatchID, Stream: 8, Revision: 2}, got[0])
	assert.Equal(t, WatchID(2), got[1].WatchID)
	assert.Equal(t, int64(7), got[1].Stream)
	assert.True(t, s.RequestProgressAll(7))
	assert.True(t, s.RequestProgress(a))
	assert.Equal(t, []WatchResponse{
		{WatchID: InvalidWatchID, Stream: 7, Revision: 2},
		{WatchID: a, Stream: 7, Revision: 2},
	}, s.Drain())
}

func TestWatchCreateAndCancelErrors(t *testing.T) {
	s := New()
	_, err := s.NewWatch(WatchRequest{Key: b("b"), End: b("a")})
	assert.ErrorIs(t, err, ErrEmptyWatcherRange)
	_, err = s.NewWatch(WatchRequest{Key: b("b"), End: b("b")})
	assert.ErrorIs(t, err, ErrEmptyWatcherRange)
	id := watch(t, s, WatchRequest{ID: 5, Key: b("k")})
	assert.Equal(t, WatchID(5), id)
	_, err = s.NewWatch(WatchRequest{ID: 5, Key: b("k")})
	assert.ErrorIs(t, err, ErrWatcherDuplicateID)
	assert.Equal(t, WatchID(1), watch(t, s, WatchRequest{Key: b("k")}))
	assert.Equal(t, 2, s.Watching())
	require.NoError(t, s.CancelWatch(5))
	assert.ErrorIs(t, s.CancelWatch(5), ErrWatcherNotExist)
	put(t, s, "k", "v")
	got := s.Drain()
	require.Len(t, got, 1)
	assert.Equal(t, WatchID(1), got[0].WatchID)
}

func TestWatchCatchUpIsBatchedAtRevisionBoundaries(t *testing.T) {
	s := New()
	for i := 0; i < watchBatchMaxRevs+10; i++ {
		_, err := s.Txn(TxnRequest{Success: []Op{
			OpPutOf(b("a"), b("v"), PutOptions{}),
			OpPutOf(b("b"), b("v"), PutOptions{}),
		}})
		require.NoError(t, err)
	}
	cur := s.Rev()
	id := watch(t, s, WatchRequest{Key: b("a"), End: b("c"), StartRev: 1})
	got := s.Drain()
	require.Len(t, got, 2)
	assert.Len(t, got[0].Events, 2*watchBatchMaxRevs)
	assert.Len(t, got[1].Events, 2*10)
	for _, r := range got {
		assert.Equal(t, id, r.WatchID)
		assert.Equal(t, cur, r.Revision)
	}
	last := got[0].Events[len(got[0].Events)-1].Kv.ModRevision
	assert.Equal(t, last+1, got[1].Events[0].Kv.ModRevision)
}

func TestWatchersCatchUpAfterRestore(t *testing.T) {
	src := New()
	put(t, src, "k", "1") // 2
	put(t, src, "k", "2") // 3
	put(t, src, "j", "1") // 4
	snap := src.Snapshot()

	s := New()
	put(t, s, "k", "1") // 2
	id := watch(t, s, WatchRequest{Key: b("k"), PrevKV: true})
	require.NoError(t, s.Restore(snap))
	p := kv("k", "1", 2, 2, 1)
	assert.Equal(t, []WatchResponse{{WatchID: id, Revision: 4, Events: []Event{{Type: EventPut, Kv: kv("k", "2", 2, 3, 2), PrevKv: &p}}}}, s.Drain())
	put(t, s, "k", "3")
	assert.Len(t, s.Drain(), 1)
}

// TestWatchFutureStartSurvivesRestoreBelowIt: a watch whose start revision
// is ahead of the store keeps it through a Restore to an even older
// revision; writes below the start are never delivered (etcd's chooseAll
// moves such a watcher straight back to synced). Found by a sweep: a watcher
// resuming on a lagging member that then installed a leader's snapshot.
func TestWatchFutureStartSurvivesRestoreBelowIt(t *testing.T) {
	src := New()
	put(t, src, "k", "1") // 2
	snap := src.Snapshot()

	s := New()
	put(t, s, "k", "1") // 2
	put(t, s, "k", "2") // 3
	id := watch(t, s, WatchRequest{Key: b("k"), StartRev: 6})
	require.NoError(t, s.Restore(snap)) // back to revision 2
	assert.Empty(t, s.Drain())
	put(t, s, "k", "a") // 3
	put(t, s, "k", "b") // 4
	put(t, s, "k", "c") // 5
	assert.Empty(t, s.Drain(), "revisions below the start are not delivered")
	put(t, s, "k", "d") // 6
	assert.Equal(t, []WatchResponse{{WatchID: id, Revision: 6, Events: []Event{putEv("k", "d", 2, 6, 5)}}}, s.Drain())
}
