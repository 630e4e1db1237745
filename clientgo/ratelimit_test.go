package clientgo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	kwq "github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/sim"
)

// clockedBucket is client-go's TypedBucketRateLimiter with the clock made
// explicit: its When is Limiter.Reserve().Delay(), and Reserve and Delay are
// ReserveN(time.Now(), 1) and DelayFrom(time.Now())
// (client-go util/workqueue/default_rate_limiters.go
// TypedBucketRateLimiter.When; golang.org/x/time/rate rate.go Reserve,
// Delay). Reading the time from now instead of the wall clock makes the
// decision deterministic; the decision itself is rate.Limiter's.
type clockedBucket struct {
	lim     *rate.Limiter
	now     func() time.Time
	delayed int // calls the bucket made wait
}

func (b *clockedBucket) When(string) time.Duration {
	t := b.now()
	d := b.lim.ReserveN(t, 1).DelayFrom(t)
	if d > 0 {
		b.delayed++
	}
	return d
}
func (b *clockedBucket) Forget(string)          {}
func (b *clockedBucket) NumRequeues(string) int { return 0 }

// rlOp is one call on a rate limiter, gap after the previous one.
type rlOp struct {
	gap  time.Duration
	item string
	verb string // "when", "forget"
}

// rlSchedule draws a seeded sequence of calls: bursts of failures (gap 0)
// that drain the bucket past its burst, short gaps that refill part of it,
// long ones that refill it all, and forgets that restart an item's backoff.
func rlSchedule(seed uint64, n int) []rlOp {
	rnd := rand.New(rand.NewPCG(seed, 0x5eed))
	items := []string{"a", "b", "c", "d", "e", "f"}
	ops := make([]rlOp, n)
	for i := range ops {
		op := rlOp{item: items[rnd.IntN(len(items))], verb: "when"}
		switch p := rnd.IntN(100); {
		case p < 85:
			op.gap = 0
		case p < 95:
			op.gap = time.Duration(rnd.Int64N(int64(100 * time.Millisecond)))
		case p < 99:
			op.gap = time.Duration(rnd.Int64N(int64(time.Second)))
		default:
			op.gap = time.Duration(rnd.Int64N(int64(20 * time.Second)))
		}
		if rnd.IntN(10) == 0 {
			op.verb = "forget"
		}
		ops[i] = op
	}
	return ops
}

// TestRateLimiterMatchesClientGo runs the same seeded schedule through
// client-go's controller rate limiter (NewTypedMaxOfRateLimiter of
// NewTypedItemExponentialFailureRateLimiter(5ms, 1000s) and a 10 qps,
// burst 100 token bucket, as DefaultTypedControllerRateLimiter builds it in
// util/workqueue/default_rate_limiters.go) and through kubesim's
// workqueue.DefaultControllerRateLimiter on virtual time, and requires the
// same wait and requeue count after every call, to the nanosecond.
func TestRateLimiterMatchesClientGo(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) {
			w := sim.NewWorld(seed)
			h := w.MustAddHost(sim.HostSpec{Name: "ctl"})
			w.RunFor(0)
			sim := kwq.DefaultControllerRateLimiter(h)

			now := time.Unix(1_700_000_000, 0)
			bucket := &clockedBucket{lim: rate.NewLimiter(rate.Limit(10), 100), now: func() time.Time { return now }}
			real := workqueue.NewTypedMaxOfRateLimiter[string](
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second), bucket)
			for i, op := range rlSchedule(seed, 1000) {
				now = now.Add(op.gap)
				w.RunFor(op.gap)
				switch op.verb {
				case "forget":
					real.Forget(op.item)
					sim.Forget(op.item)
				default:
					require.Equal(t, real.When(op.item), sim.When(op.item), "call %d (%s %s after %s)", i, op.verb, op.item, op.gap)
				}
				require.Equal(t, real.NumRequeues(op.item), sim.NumRequeues(op.item), "call %d: requeues of %s", i, op.item)
			}
			require.Positive(t, bucket.delayed, "the schedule drains the bucket past its burst")
		})
	}
}

// TestItemBackoffCapMatchesClientGo: the per-item limiter past its cap
// and past float64 overflow (client-go
// TypedItemExponentialFailureRateLimiter.When returns maxDelay once
// base*2^n exceeds it or MaxInt64).
func TestItemBackoffCapMatchesClientGo(t *testing.T) {
	for _, c := range []struct{ base, max time.Duration }{
		{5 * time.Millisecond, 1000 * time.Second},
		{time.Millisecond, 1000 * time.Second},
		{time.Second, time.Duration(1<<63 - 1)},
		{3 * time.Millisecond, 0},
	} {
		real := workqueue.NewTypedItemExponentialFailureRateLimiter[string](c.base, c.max)
		sim := kwq.NewItemExponentialFailureRateLimiter(c.base, c.max)
		for i := 0; i < 1100; i++ {
			require.Equal(t, real.When("x"), sim.When("x"), "base %s max %s failure %d", c.base, c.max, i)
		}
	}
}

// TestDefaultControllerRateLimiterIsTheMirroredOne checks that the limiter
// the differential builds is the one client-go's
// DefaultTypedControllerRateLimiter builds: on the wall clock, the real
// default lets 100 fresh items through with the per-item 5 ms and makes
// the 101st wait about 100 ms (one token at 10 qps), less the time the
// calls took; kubesim's default, on a frozen virtual clock, exactly 100 ms.
func TestDefaultControllerRateLimiterIsTheMirroredOne(t *testing.T) {
	real := workqueue.DefaultTypedControllerRateLimiter[string]()
	start := time.Now()
	for i := 0; i < 100; i++ {
		require.Equal(t, 5*time.Millisecond, real.When(fmt.Sprint("item-", i)), "burst %d", i)
	}
	d := real.When("item-100")
	elapsed := time.Since(start)
	require.LessOrEqual(t, d, 100*time.Millisecond)
	require.GreaterOrEqual(t, d, 100*time.Millisecond-elapsed-time.Millisecond, "took %s", elapsed)

	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "ctl"})
	w.RunFor(0)
	simRL := kwq.DefaultControllerRateLimiter(h)
	for i := 0; i < 100; i++ {
		require.Equal(t, 5*time.Millisecond, simRL.When(fmt.Sprint("item-", i)), "burst %d", i)
	}
	require.Equal(t, 100*time.Millisecond, simRL.When("item-100"))
}
