package workqueue_test

import (
	"errors"
	"testing"
	"time"

	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/sim"
	"github.com/stretchr/testify/require"
)

func world() (*sim.World, *sim.Host) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "ctl"})
	w.RunFor(0)
	return w, h
}

func TestDedupeAndReaddWhileProcessing(t *testing.T) {
	_, h := world()
	q := workqueue.New(h, "q", nil)
	q.Add("a")
	q.Add("a")
	q.Add("b")
	require.Equal(t, 2, q.Len())
	k, ok := q.Get()
	require.True(t, ok)
	require.Equal(t, "a", k)
	q.Add("a") // while processing: not queued yet
	q.Add("a")
	require.Equal(t, 1, q.Len())
	q.Done("a")
	require.Equal(t, 2, q.Len(), "queued again after Done, once")
	k, _ = q.Get()
	require.Equal(t, "b", k)
	k, _ = q.Get()
	require.Equal(t, "a", k)
	q.Done("a")
	q.Done("b")
	_, ok = q.Get()
	require.False(t, ok)
}

func TestItemExponentialBackoff(t *testing.T) {
	_, h := world()
	rl := workqueue.DefaultControllerRateLimiter(h)
	for i, want := range []time.Duration{5, 10, 20, 40, 80, 160} {
		require.Equal(t, want*time.Millisecond, rl.When("a"), "failure %d", i)
	}
	require.Equal(t, 6, rl.NumRequeues("a"))
	require.Equal(t, 5*time.Millisecond, rl.When("b"), "per item")
	rl.Forget("a")
	require.Equal(t, 0, rl.NumRequeues("a"))
	require.Equal(t, 5*time.Millisecond, rl.When("a"))
	ie := workqueue.NewItemExponentialFailureRateLimiter(5*time.Millisecond, 1000*time.Second)
	var d time.Duration
	for i := 0; i < 100; i++ {
		d = ie.When("x")
	}
	require.Equal(t, 1000*time.Second, d, "capped")
}

func TestBucketLimitsOverallRate(t *testing.T) {
	_, h := world()
	rl := workqueue.NewBucketRateLimiter(h, 10, 100)
	for i := 0; i < 100; i++ {
		require.Zero(t, rl.When("x"), "burst %d", i)
	}
	require.Equal(t, 100*time.Millisecond, rl.When("x"))
	require.Equal(t, 200*time.Millisecond, rl.When("x"))
}

func TestRateLimitedTimingsThroughQueue(t *testing.T) {
	w, h := world()
	q := workqueue.New(h, "q", nil)
	var times []time.Duration
	fails := 4
	q.Run(1, func(key string, done func(error)) {
		times = append(times, time.Duration(w.Now()))
		if len(times) <= fails {
			done(errors.New("boom"))
			return
		}
		done(nil)
	})
	q.Add("a")
	w.RunFor(time.Second)
	require.Len(t, times, fails+1)
	want := []time.Duration{0, 5, 15, 35, 75} // cumulative 5ms*2^n waits
	for i := range want {
		require.Equal(t, want[i]*time.Millisecond, times[i])
	}
	require.Equal(t, 0, q.NumRequeues("a"), "forgotten after success")
}

func TestWorkersBoundConcurrency(t *testing.T) {
	w, h := world()
	q := workqueue.New(h, "q", nil)
	active, peak, processed := 0, 0, 0
	q.Run(2, func(key string, done func(error)) {
		active++
		peak = max(peak, active)
		h.After(10*time.Millisecond, "work", func() { active--; processed++; done(nil) })
	})
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		q.Add(k)
	}
	w.RunFor(time.Second)
	require.Equal(t, 2, peak)
	require.Equal(t, 5, processed)
}

func TestAddAfterKeepsEarliest(t *testing.T) {
	w, h := world()
	q := workqueue.New(h, "q", nil)
	var at []time.Duration
	q.Run(1, func(key string, done func(error)) { at = append(at, time.Duration(w.Now())); done(nil) })
	q.AddAfter("a", 50*time.Millisecond)
	q.AddAfter("a", 20*time.Millisecond)
	q.AddAfter("a", 30*time.Millisecond)
	w.RunFor(time.Second)
	require.Equal(t, []time.Duration{20 * time.Millisecond}, at)
	q.ShutDown()
	q.Add("b")
	w.RunFor(time.Second)
	require.Len(t, at, 1)
}

// TestBucketRefills: the overall bucket refills at qps tokens a second of
// the host's clock, up to burst, as golang.org/x/time/rate's limiter that
// client-go's BucketRateLimiter wraps.
func TestBucketRefills(t *testing.T) {
	w, h := world()
	rl := workqueue.NewBucketRateLimiter(h, 10, 100)
	for range 100 {
		rl.When("x")
	}
	w.RunFor(time.Second) // 10 tokens back
	for i := range 10 {
		require.Zero(t, rl.When("x"), "refilled token %d", i)
	}
	require.Equal(t, 100*time.Millisecond, rl.When("x"))
	w.RunFor(time.Hour) // the bucket holds at most burst
	for range 100 {
		require.Zero(t, rl.When("x"))
	}
	require.Positive(t, rl.When("x"))
}

// TestAddAfterNoDelayAddsNow: a delay of zero or less adds the key at once,
// as client-go's delaying queue does, not after a zero timer.
func TestAddAfterNoDelayAddsNow(t *testing.T) {
	_, h := world()
	q := workqueue.New(h, "q", nil)
	q.AddAfter("a", 0)
	q.AddAfter("b", -time.Second)
	require.Equal(t, 2, q.Len())
}

// TestOnRetryReportsBackoff: OnRetry hears of each failed key with its
// error and the backoff it was put back with, and of nothing else.
func TestOnRetryReportsBackoff(t *testing.T) {
	w, h := world()
	q := workqueue.New(h, "q", nil)
	var afters []time.Duration
	q.OnRetry = func(key string, err error, after time.Duration) {
		require.Equal(t, "a", key)
		require.EqualError(t, err, "boom")
		afters = append(afters, after)
	}
	runs := 0
	q.Run(1, func(key string, done func(error)) {
		if runs++; runs <= 3 {
			done(errors.New("boom"))
			return
		}
		done(nil)
	})
	q.Add("a")
	w.RunFor(time.Second)
	require.Equal(t, 4, runs)
	require.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, afters)
}
