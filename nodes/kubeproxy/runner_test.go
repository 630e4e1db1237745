package kubeproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

func at(d time.Duration) sim.Time { return sim.Time(0).Add(d) }

// TestRunnerBurstThenMinPeriod: the bucket starts full, so two requests run
// at once; a third within the minimum period is deferred to one period
// after the last run, and runs then.
func TestRunnerBurstThenMinPeriod(t *testing.T) {
	r := NewRunner(time.Second, time.Hour, BurstSyncs, 0)
	require.Equal(t, at(time.Hour), r.Next(), "the loop's first timer: maxInterval")
	require.True(t, r.Try(at(100*time.Millisecond)))
	require.True(t, r.Try(at(200*time.Millisecond)))
	require.False(t, r.Try(at(300*time.Millisecond)))
	require.Equal(t, at(1200*time.Millisecond), r.Next(), "next possible: min period after the last run")
	require.True(t, r.Try(r.Next()))
	require.Equal(t, at(1200*time.Millisecond).Add(time.Hour), r.Next())
}

// TestRunnerCoalesces: once the bucket is empty, every request inside a
// period is coalesced into one run at the end of it; runs are then one
// period apart however many requests arrive.
func TestRunnerCoalesces(t *testing.T) {
	r := NewRunner(time.Second, time.Hour, BurstSyncs, 0)
	var runs []sim.Time
	try := func(now sim.Time) {
		if r.Try(now) {
			runs = append(runs, now)
		}
	}
	// A request every 100 ms for 5 s, and the timer whenever it is due.
	for now := sim.Time(0); now <= at(5*time.Second); now = now.Add(100 * time.Millisecond) {
		for r.Next() <= now {
			try(r.Next())
		}
		try(now)
	}
	// The burst takes both tokens at 0 and 100 ms, leaving 0.1 of one; the
	// bucket holds a whole token again at 1 s (not 1.1 s: the token bucket,
	// not the last run, decides), and from then on every second.
	require.Equal(t, []sim.Time{0, at(100 * time.Millisecond), at(time.Second), at(2 * time.Second),
		at(3 * time.Second), at(4 * time.Second), at(5 * time.Second)}, runs)
	for i := 3; i < len(runs); i++ {
		require.Equal(t, time.Second, runs[i].Sub(runs[i-1]), "at most one sync per min period after the burst")
	}
}

// TestRunnerRefills: after a quiet period the bucket is full again and a
// burst of two runs at once.
func TestRunnerRefills(t *testing.T) {
	r := NewRunner(time.Second, time.Hour, BurstSyncs, 0)
	require.True(t, r.Try(0))
	require.True(t, r.Try(0))
	require.False(t, r.Try(at(500*time.Millisecond)))
	require.True(t, r.Try(at(10*time.Second)))
	require.True(t, r.Try(at(10*time.Second)), "two tokens accrued, capped at the burst")
	require.False(t, r.Try(at(10*time.Second)))
}

// TestRunnerPeriodic: with no request the function runs every maxInterval.
func TestRunnerPeriodic(t *testing.T) {
	r := NewRunner(time.Second, 30*time.Second, BurstSyncs, at(time.Second))
	for i := 1; i <= 3; i++ {
		next := r.Next()
		require.Equal(t, at(time.Second+time.Duration(i)*30*time.Second), next)
		require.True(t, r.Try(next))
	}
}

// TestRunnerNoMinPeriod: a zero minimum period never defers a run.
func TestRunnerNoMinPeriod(t *testing.T) {
	r := NewRunner(0, time.Hour, BurstSyncs, 0)
	for range 10 {
		require.True(t, r.Try(at(time.Millisecond)))
	}
}

// TestConfigDefaults: zero timing fields take the real defaults.
func TestConfigDefaults(t *testing.T) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "node-1", Boot: func(*sim.Host) {}})
	cfg := Config{}.withDefaults(h)
	require.Equal(t, Config{Node: "node-1", MinSyncPeriod: time.Second, SyncPeriod: 30 * time.Second,
		MaxSyncInterval: time.Hour, DisconnectTimeout: 10 * time.Second}, cfg)
}
