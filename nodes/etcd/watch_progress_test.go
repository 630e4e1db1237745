package etcd

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestWatchProgressNotifyIntervalDefaults: --watch-progress-notify-interval
// unset keeps etcd's 10 min (server/etcdserver/api/v3rpc/watch.go,
// progressReportInterval; NewWatchServer sets it only when the flag is
// > 0), and a value under 100 ms is raised to it (minWatchProgressInterval).
func TestWatchProgressNotifyIntervalDefaults(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "h"})
	for _, tc := range []struct{ set, want time.Duration }{
		{0, 10 * time.Minute},
		{-time.Second, 10 * time.Minute},
		{50 * time.Millisecond, 100 * time.Millisecond},
		{2 * time.Second, 2 * time.Second},
	} {
		got := Config{WatchProgressNotifyInterval: tc.set}.withDefaults(h).WatchProgressNotifyInterval
		require.Equal(t, tc.want, got, "set %v", tc.set)
	}
}

// progressCluster is a three-member cluster with a 1 s progress interval
// and a leader.
func progressCluster(t *testing.T, seed uint64) (*cluster, **Client) {
	cl := newCluster(t, seed, 3, func(c *Config) { c.WatchProgressNotifyInterval = time.Second }, sim.DiskSpec{})
	c := cl.addClient("client")
	cl.waitLeader(5 * time.Second)
	return cl, c
}

func progressResps(l *watchLog) []WatchResponse {
	var out []WatchResponse
	for _, r := range l.resps {
		if r.Progress {
			out = append(out, r)
		}
	}
	return out
}

// TestWatchProgressNotifyOnIdleWatch: a watch created with progress_notify
// that gets no events is sent a progress notification (no events, the
// member's current revision, though the writes were to keys it does not
// watch) every interval, the interval jittered by less than a tenth once
// per stream (etcd server/etcdserver/api/v3rpc/watch.go, sendLoop's
// progressTicker and GetProgressReportInterval); a watch without it gets
// none.
func TestWatchProgressNotifyOnIdleWatch(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		cl, c := progressCluster(t, seed)
		var with, without watchLog
		cl.watch(c, WatchRequest{Key: "k", ProgressNotify: true}, &with)
		cl.watch(c, WatchRequest{Key: "k"}, &without)
		start := cl.w.Now()
		res, err := cl.put(c, "other", "x")
		require.NoError(t, err)
		cl.w.RunFor(10*time.Second - cl.w.Now().Sub(start))
		got := progressResps(&with)
		// Ten ticks of a period in [1 s, 1.1 s) in 10 s: 9 or 10 (the
		// first one 1 s or more after the create).
		require.True(t, len(got) == 9 || len(got) == 10, "seed %d: %d notifications", seed, len(got))
		for _, r := range got {
			require.Empty(t, r.Events)
			require.Equal(t, res.Header.Revision, r.Revision, "seed %d: the current revision", seed)
		}
		require.Empty(t, without.resps, "no progress_notify, no notification")
	}
}

// TestWatchProgressNotifyElidedAfterEvents: a tick after which the watch
// was sent events sends no notification (v3rpc/watch.go, sendLoop: "elide
// next progress update if sent a key update"); once the watch is idle for
// a whole interval, notifications resume.
func TestWatchProgressNotifyElidedAfterEvents(t *testing.T) {
	cl, c := progressCluster(t, 4)
	var l watchLog
	cl.watch(c, WatchRequest{Key: "k", ProgressNotify: true}, &l)
	end := cl.w.Now().Add(5 * time.Second)
	var last int64
	for cl.w.Now() < end {
		res, err := cl.put(c, "k", "v")
		require.NoError(t, err)
		last = res.Header.Revision
		cl.w.RunFor(300 * time.Millisecond)
	}
	require.Empty(t, progressResps(&l), "a write every 300 ms: every tick elided")
	cl.w.RunFor(3 * time.Second)
	got := progressResps(&l)
	require.NotEmpty(t, got, "idle again: notified")
	require.LessOrEqual(t, len(got), 3)
	require.Equal(t, last, got[0].Revision)
}

// TestWatchProgressNotifyNotBeforeStartRevision: a synced watch from a
// revision still ahead gets no notification until the store reaches it
// (etcd server/storage/mvcc/watchable_store.go, progressIfSync: "if rev <
// w.startRev { return false }"): as kube-apiserver's watch from the
// revision after its list, on an idle keyspace.
func TestWatchProgressNotifyNotBeforeStartRevision(t *testing.T) {
	cl, c := progressCluster(t, 5)
	res, err := cl.put(c, "other", "x")
	require.NoError(t, err)
	var l watchLog
	cl.watch(c, WatchRequest{Key: "k", StartRev: res.Header.Revision + 1, ProgressNotify: true}, &l)
	cl.w.RunFor(5 * time.Second)
	require.Empty(t, l.resps, "the store is one revision short of the watch's start")
	_, err = cl.put(c, "other", "y")
	require.NoError(t, err)
	cl.w.RunFor(3 * time.Second)
	got := progressResps(&l)
	require.NotEmpty(t, got, "the store reached the start revision")
	require.Equal(t, res.Header.Revision+1, got[0].Revision)
}
