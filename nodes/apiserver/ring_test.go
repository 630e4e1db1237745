package apiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// ringRevs lists the revisions the ring holds, oldest first.
func ringRevs(r *eventRing) []int64 {
	var out []int64
	for i := range r.len() {
		out = append(out, r.at(i).rev)
	}
	return out
}

// TestEventRingResizes checks the watch cache ring against the real
// watchCache's sizing (k8s.io/apiserver, pkg/storage/cacher/watch_cache.go:
// updateCache, resizeCacheLocked, doCacheResizeLocked): a full ring
// doubles, up to the upper bound, while its oldest event is younger than
// eventFreshDuration; it halves, down to the lower bound, once the event a
// quarter of its capacity back from the newest is older than that; and a
// ring still full after resizing drops its oldest event.
func TestEventRingResizes(t *testing.T) {
	const fresh = 75 * time.Second
	at := func(d time.Duration) sim.Time { return sim.Time(0).Add(d) }
	tests := []struct {
		name    string
		lo, hi  int
		times   []time.Duration // one event per entry, revisions 1, 2, ...
		wantCap int
		want    []int64
		removed bool
	}{
		{name: "not full: no resize", lo: 4, hi: 16, times: []time.Duration{0, 0, 0}, wantCap: 4, want: []int64{1, 2, 3}},
		{name: "full and fresh: doubles", lo: 4, hi: 16, times: []time.Duration{0, 0, 0, 0, 0}, wantCap: 8, want: []int64{1, 2, 3, 4, 5}},
		{name: "doubling stops at the upper bound, then the oldest goes", lo: 4, hi: 8,
			times: []time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 0}, wantCap: 8, want: []int64{2, 3, 4, 5, 6, 7, 8, 9}, removed: true},
		{name: "full, oldest stale but newest quarter fresh: keep size, drop oldest", lo: 2, hi: 16,
			times: []time.Duration{0, 0, 0, 80 * time.Second, 80 * time.Second}, wantCap: 4, want: []int64{2, 3, 4, 5}, removed: true},
		{name: "full and the newest quarter stale: halves to the newest half, then drops the oldest", lo: 2, hi: 16,
			times: []time.Duration{0, 0, 0, 0, 80 * time.Second}, wantCap: 2, want: []int64{4, 5}, removed: true},
		{name: "halving stops at the lower bound", lo: 4, hi: 16,
			times: []time.Duration{0, 0, 0, 0, 80 * time.Second}, wantCap: 4, want: []int64{2, 3, 4, 5}, removed: true},
		{name: "exactly fresh old is not younger: no doubling", lo: 2, hi: 16,
			times: []time.Duration{0, 0, fresh}, wantCap: 2, want: []int64{2, 3}, removed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r eventRing
			r.reset(tt.lo)
			removed := false
			for i, d := range tt.times {
				removed = r.push(cacheEvent{rev: int64(i + 1), at: at(d)}, fresh, tt.lo, tt.hi) || removed
			}
			assert.Equal(t, tt.wantCap, r.capacity(), "capacity")
			assert.Equal(t, tt.want, ringRevs(&r), "events held")
			assert.Equal(t, tt.removed, removed, "an event left the ring")
		})
	}
}

// TestEventRingClearKeepsCapacity: a list empties the ring but keeps its
// capacity, as the real Replace does (startIndex = endIndex).
func TestEventRingClearKeepsCapacity(t *testing.T) {
	var r eventRing
	r.reset(2)
	for i := range 5 {
		r.push(cacheEvent{rev: int64(i + 1)}, time.Minute, 2, 16)
	}
	require.Equal(t, 8, r.capacity())
	r.clear()
	assert.Equal(t, 0, r.len())
	assert.Equal(t, 8, r.capacity())
	r.push(cacheEvent{rev: 9}, time.Minute, 2, 16)
	assert.Equal(t, []int64{9}, ringRevs(&r))
}

// TestOldestRV: while no event has left the ring since the last list, a
// watch can resume from the list's revision; once one has, only from the
// revision before the oldest event held (getAllEventsSinceLocked).
func TestOldestRV(t *testing.T) {
	c := &cache{listRev: 10}
	c.events.reset(2)
	assert.Equal(t, int64(10), c.oldestRV(), "empty ring after a list")
	c.events.push(cacheEvent{rev: 12}, time.Minute, 2, 2)
	c.events.push(cacheEvent{rev: 15}, time.Minute, 2, 2)
	assert.Equal(t, int64(10), c.oldestRV(), "nothing removed yet")
	c.removed = c.events.push(cacheEvent{rev: 20}, time.Minute, 2, 2)
	require.True(t, c.removed)
	assert.Equal(t, int64(14), c.oldestRV(), "the revision before the oldest event held")
}
