package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// buggified is the trace event of point firing with a delay of ms.
func buggified(point sim.BuggifyPoint, ms int64) *sim.BuggifyEvent {
	return &sim.BuggifyEvent{Point: point, Delay: time.Duration(ms) * time.Millisecond}
}

// TestBuggifyDelaysStretch: a window stretches by the longest delay of
// each point whose span overlaps it, summed over the points; firings
// outside it, and other events, stretch nothing.
func TestBuggifyDelaysStretch(t *testing.T) {
	var b BuggifyDelays
	for _, s := range []step{
		at(1000, buggified(sim.BuggifyEarly429, 1000)),   // spans [1, 2] s
		at(5000, buggified(sim.BuggifyCacheBehind, 100)), // [5, 5.1]
		at(5050, buggified(sim.BuggifyCacheBehind, 400)), // [5.05, 5.45]
		at(5200, buggified(sim.BuggifySlowPeer, 250)),    // [5.2, 5.45]
		at(6000, &sim.BuggifyEvent{Point: sim.BuggifyLateWatch}),
		at(7000, buggified(sim.BuggifyApplyLag, 50)),
	} {
		b.Observe(&sim.Event{At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Data: s.data})
	}
	b.Observe(&sim.Event{At: sim.Time(8 * time.Second), Kind: sim.KindFault, Name: "pause"})
	ms := func(v int64) sim.Time { return sim.Time(v * int64(time.Millisecond)) }
	for _, tc := range []struct {
		from, to int64
		want     time.Duration
	}{
		{0, 500, 0},
		{1500, 1600, time.Second},            // inside the 429's Retry-After
		{2500, 4900, 0},                      // between firings
		{5000, 5000, 100 * time.Millisecond}, // the second firing comes after
		{5300, 6500, 650 * time.Millisecond}, // cache-behind's longest, plus the slow peer
		{0, 10000, time.Second + 700*time.Millisecond},
		{7060, 9000, 0},
	} {
		require.Equal(t, tc.want, b.Stretch(ms(tc.from), ms(tc.to)), "[%d, %d] ms", tc.from, tc.to)
	}
	var none BuggifyDelays
	require.Zero(t, none.Stretch(0, ms(10000)))
}
