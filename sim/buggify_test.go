package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// buggifyWorld is a world of one host that asks point n times, at one ask
// a millisecond, and records what it got and what the trace says.
func buggifyWorld(t *testing.T, seed uint64, enable func(w *World), point BuggifyPoint, n int) (fired []time.Duration, traced []BuggifyEvent, w *World) {
	t.Helper()
	w = NewWorld(seed)
	if enable != nil {
		enable(w)
	}
	w.Subscribe(func(e *Event) {
		if b, ok := e.Data.(*BuggifyEvent); ok {
			require.Equal(t, KindNode, e.Kind)
			traced = append(traced, *b)
		}
	})
	w.MustAddHost(HostSpec{Name: "h", Boot: func(h *Host) {
		var ask func()
		left := n
		ask = func() {
			if d, ok := h.BuggifyDelay(point); ok {
				fired = append(fired, d)
			}
			if left--; left > 0 {
				h.After(time.Millisecond, "ask", ask)
			}
		}
		h.After(time.Millisecond, "ask", ask)
	}})
	w.RunFor(time.Duration(n+1) * time.Millisecond)
	return fired, traced, w
}

// TestBuggifyFiresOnlyWhenActive: with BUGGIFY off a point never fires
// and the world draws from no BUGGIFY stream; active, each point fires at
// about its chance, each firing traced with the delay it drew, in the
// point's range; inactive in a run with BUGGIFY on, it never fires.
func TestBuggifyFiresOnlyWhenActive(t *testing.T) {
	const asks = 20000
	for _, info := range BuggifyPoints() {
		t.Run(string(info.Point), func(t *testing.T) {
			fired, traced, w := buggifyWorld(t, 1, nil, info.Point, asks)
			require.Empty(t, fired)
			require.Empty(t, traced)
			require.False(t, w.BuggifyOn())
			require.Nil(t, w.BuggifyActive())
			for _, name := range SortedKeys(w.streams) {
				require.NotContains(t, name, "buggify", "no BUGGIFY stream drawn from with BUGGIFY off")
			}

			fired, traced, w = buggifyWorld(t, 1, func(w *World) { require.NoError(t, w.EnableBuggify(info.Point)) }, info.Point, asks)
			require.Equal(t, []BuggifyPoint{info.Point}, w.BuggifyActive())
			require.InDelta(t, info.Chance*asks, float64(len(fired)), 5*(1+info.Chance*asks)/10+10, "fires at about its chance")
			require.Len(t, traced, len(fired))
			require.Equal(t, len(fired), w.BuggifyFired(info.Point))
			for i, d := range fired {
				require.Equal(t, BuggifyEvent{Point: info.Point, Delay: d}, traced[i])
				require.GreaterOrEqual(t, d, info.Min)
				if info.Max > info.Min {
					require.Less(t, d, info.Max)
				} else {
					require.Equal(t, info.Min, d)
				}
			}

			var others []BuggifyPoint
			for _, p := range BuggifyPoints() {
				if p.Point != info.Point {
					others = append(others, p.Point)
				}
			}
			fired, traced, w = buggifyWorld(t, 1, func(w *World) { require.NoError(t, w.EnableBuggify(others...)) }, info.Point, asks)
			require.Empty(t, fired)
			require.Empty(t, traced)
			require.Zero(t, w.BuggifyFired(info.Point))
		})
	}
}

// TestBuggifyActivation: the points active in a run are drawn from its
// seed, the same for the same seed, about BuggifyActiveChance of them
// over many seeds, every point active in some run and inactive in
// another.
func TestBuggifyActivation(t *testing.T) {
	active := map[BuggifyPoint]int{}
	const seeds = 400
	for seed := uint64(1); seed <= seeds; seed++ {
		w := NewWorld(seed)
		require.NoError(t, w.EnableBuggify())
		again := NewWorld(seed)
		require.NoError(t, again.EnableBuggify())
		require.Equal(t, w.BuggifyActive(), again.BuggifyActive())
		for _, p := range w.BuggifyActive() {
			active[p]++
		}
	}
	for _, info := range BuggifyPoints() {
		require.InDelta(t, BuggifyActiveChance*seeds, active[info.Point], 0.15*seeds, "%s", info.Point)
	}
}

// TestBuggifyEnableErrors: BUGGIFY is switched on once, before the world
// runs, with known points only.
func TestBuggifyEnableErrors(t *testing.T) {
	w := NewWorld(1)
	require.ErrorContains(t, w.EnableBuggify("no-such-point"), `unknown BUGGIFY point "no-such-point"`)
	require.False(t, w.BuggifyOn())
	require.NoError(t, w.EnableBuggify(BuggifyApplyLag))
	require.ErrorContains(t, w.EnableBuggify(), "already on")
	w = NewWorld(1)
	w.RunFor(time.Millisecond)
	require.ErrorContains(t, w.EnableBuggify(), "before the world runs")
	_, err := ParseBuggifyPoint(string(BuggifySlowPeer))
	require.NoError(t, err)
}

// TestBuggifyEventText: a firing prints its point and, if it drew one,
// its delay.
func TestBuggifyEventText(t *testing.T) {
	require.Equal(t, "point=etcd-apply-lag delay=25ms", string((&BuggifyEvent{Point: BuggifyApplyLag, Delay: 25 * time.Millisecond}).AppendText(nil)))
	require.Equal(t, "point=raft-slow-peer", string((&BuggifyEvent{Point: BuggifySlowPeer}).AppendText(nil)))
	require.Equal(t, KindBuggify, (&BuggifyEvent{}).TraceKind())
}

// TestBuggifyPointsDocumented: every point says where it is asked, what
// it does and what real behaviour it stands for, fires rarely, and draws
// a delay range that makes sense.
func TestBuggifyPointsDocumented(t *testing.T) {
	seen := map[BuggifyPoint]bool{}
	for _, info := range BuggifyPoints() {
		require.False(t, seen[info.Point], "%s twice", info.Point)
		seen[info.Point] = true
		require.NotEmpty(t, info.Where, info.Point)
		require.NotEmpty(t, info.Does, info.Point)
		require.NotEmpty(t, info.Real, info.Point)
		require.True(t, info.Chance > 0 && info.Chance <= 0.05, "%s fires rarely", info.Point)
		require.LessOrEqual(t, info.Min, info.Max, info.Point)
	}
}
