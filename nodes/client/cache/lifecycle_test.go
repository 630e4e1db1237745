package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestBackoffResetIsStrict: the backoff manager resets to its initial wait
// only when MORE than the reset duration passed since the last backoff
// began; a backoff exactly BackoffReset later keeps growing. As
// k8s.io/apimachinery pkg/util/wait/backoff.go,
// exponentialBackoffManagerImpl.getNextBackoff:
// `if b.clock.Now().Sub(b.lastBackoffStart) > b.backoffResetDuration`.
func TestBackoffResetIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name     string
		gap      time.Duration
		min, max time.Duration // the second wait is in [min, max)
	}{
		{"exactly the reset duration: grows", cache.BackoffReset, 2 * cache.BackoffInitial, 4 * cache.BackoffInitial},
		{"just past it: resets", cache.BackoffReset + time.Nanosecond, cache.BackoffInitial, 2 * cache.BackoffInitial},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := cache.NewBackoffManager(cache.BackoffInitial, cache.BackoffMax, cache.BackoffReset, cache.BackoffFactor, cache.BackoffJitter, sim.NewStream(1, "b"))
			start := sim.Time(time.Hour)
			d := m.Next(start)
			require.GreaterOrEqual(t, d, cache.BackoffInitial)
			require.Less(t, d, 2*cache.BackoffInitial)
			d = m.Next(start.Add(tc.gap))
			require.GreaterOrEqual(t, d, tc.min)
			require.Less(t, d, tc.max)
		})
	}
}

// TestReflectorKeepsItsConfiguredName: a reflector (and so an informer)
// given a name traces its lists under that name; only an empty name
// defaults (here to "<client>/<resource>"). client-go's
// NewReflectorWithOptions (tools/cache/reflector.go) likewise keeps
// options.Name and derives a name only when it is empty.
func TestReflectorKeepsItsConfiguredName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"", "informer/pods"},
		{"pod-informer", "pod-informer"},
	} {
		e := newEnv(1, 1, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Name: tc.name}})
		e.do(func() { e.create("a", nil) })
		e.do(e.inf.Run)
		require.Len(t, e.relists, 1)
		require.Equal(t, tc.want, e.relists[0].Informer)
		require.Equal(t, tc.want, e.inf.Name())
		require.NotEmpty(t, e.events)
		require.Equal(t, tc.want, e.events[0].Informer)
	}
}

// TestStopThenRunDropsTheListInFlight: a list still in flight when the
// reflector stops is never applied, even when the reflector runs again
// before its answer comes: only the new run's list is stored and watched
// from. In client-go, Reflector.list waits for the list or for stopCh and
// returns on stopCh, dropping the list (tools/cache/reflector.go, func
// (r *Reflector) list); a new Run starts a new ListAndWatch.
func TestStopThenRunDropsTheListInFlight(t *testing.T) {
	e := newEnv(3, 1, cache.InformerConfig{})
	e.do(func() { e.create("a", nil); e.create("b", nil) })
	e.do(func() {
		e.inf.Run()
		e.inf.Stop()
		e.inf.Run()
	})
	e.do(func() { e.create("c", nil) })
	require.Equal(t, 2, e.Server(0).Requests[apiwire.VerbList], "each run listed")
	require.Len(t, e.relists, 1, "only the second run's list was applied")
	require.Equal(t, 1, e.inf.Reflector().Relists())
	require.Equal(t, 1, e.Server(0).Requests[apiwire.VerbWatch], "one watch, from the second run's list")
	require.Equal(t, []string{"add a (initial)", "add b (initial)", "add c"}, e.log)
	e.requireConverged(t)
}

// TestWatchOfExactlyOneSecondIsNotVeryShort: client-go's "very short
// watch" is one that lasted LESS than a second with no event
// (tools/cache/reflector.go, handleAnyWatch/watchHandler:
// `if watchDuration < 1*time.Second && eventCount == 0`); only that one
// makes the reflector relist. Here the server closes the streams a second
// after it received their requests (the client sees at least that, plus
// the round trip), or 10 ms under.
func TestWatchOfExactlyOneSecondIsNotVeryShort(t *testing.T) {
	for _, tc := range []struct {
		life    time.Duration
		relists bool
	}{
		{time.Second, false},
		{time.Second - 10*time.Millisecond, true},
	} {
		t.Run(tc.life.String(), func(t *testing.T) {
			e := newEnv(3, 1, cache.InformerConfig{})
			e.Server(0).WatchLifetime = tc.life
			e.do(func() { e.create("a", nil) })
			e.do(e.inf.Run)
			e.World.RunFor(5 * time.Second)
			require.Greater(t, e.Server(0).Requests[apiwire.VerbWatch], 2, "the streams ended and were reopened")
			if !tc.relists {
				require.Len(t, e.relists, 1, "resumed each time, no relist")
				return
			}
			require.Greater(t, len(e.relists), 1)
			require.Equal(t, cache.RelistWatchError, e.relists[1].Reason)
		})
	}
}
