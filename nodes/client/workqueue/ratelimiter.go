package workqueue

import (
	"math"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// RateLimiter decides how long an item waits before it is queued again, as
// workqueue.TypedRateLimiter[string].
type RateLimiter interface {
	// When returns the wait for item's next retry (and counts a failure).
	When(item string) time.Duration
	// Forget stops tracking item: its next failure starts afresh.
	Forget(item string)
	// NumRequeues returns how many times item has failed since it was last
	// forgotten.
	NumRequeues(item string) int
}

// ItemExponentialFailureRateLimiter waits base*2^failures for an item, up
// to max, exactly as client-go's.
type ItemExponentialFailureRateLimiter struct {
	base, max time.Duration
	failures  map[string]int
}

// NewItemExponentialFailureRateLimiter makes a per-item exponential
// limiter.
func NewItemExponentialFailureRateLimiter(base, max time.Duration) *ItemExponentialFailureRateLimiter {
	return &ItemExponentialFailureRateLimiter{base: base, max: max, failures: make(map[string]int)}
}

// When implements RateLimiter.
func (r *ItemExponentialFailureRateLimiter) When(item string) time.Duration {
	exp := r.failures[item]
	r.failures[item]++
	backoff := float64(r.base.Nanoseconds()) * math.Pow(2, float64(exp))
	if backoff > math.MaxInt64 {
		return r.max
	}
	if d := time.Duration(backoff); d <= r.max {
		return d
	}
	return r.max
}

// Forget implements RateLimiter.
func (r *ItemExponentialFailureRateLimiter) Forget(item string) { delete(r.failures, item) }

// NumRequeues implements RateLimiter.
func (r *ItemExponentialFailureRateLimiter) NumRequeues(item string) int { return r.failures[item] }

// BucketRateLimiter is an overall token bucket, as client-go's wrapper of
// golang.org/x/time/rate: qps tokens a second, at most burst saved, and
// each When reserves one token, waiting until it is there. Like rate's
// Reserve, a reservation is never cancelled.
type BucketRateLimiter struct {
	h      *sim.Host
	qps    float64
	burst  float64
	tokens float64
	last   sim.Time
}

// NewBucketRateLimiter makes a full bucket on h's clock.
func NewBucketRateLimiter(h *sim.Host, qps float64, burst int) *BucketRateLimiter {
	return &BucketRateLimiter{h: h, qps: qps, burst: float64(burst), tokens: float64(burst), last: h.Now()}
}

// When implements RateLimiter.
func (r *BucketRateLimiter) When(string) time.Duration {
	now := r.h.Now()
	if now > r.last {
		r.tokens = math.Min(r.burst, r.tokens+now.Sub(r.last).Seconds()*r.qps)
		r.last = now
	}
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(-r.tokens / r.qps * float64(time.Second))
}

// Forget implements RateLimiter (the bucket is not per item).
func (r *BucketRateLimiter) Forget(string) {}

// NumRequeues implements RateLimiter.
func (r *BucketRateLimiter) NumRequeues(string) int { return 0 }

// MaxOfRateLimiter waits the longest of its limiters' waits.
type MaxOfRateLimiter struct{ limiters []RateLimiter }

// NewMaxOfRateLimiter combines limiters.
func NewMaxOfRateLimiter(limiters ...RateLimiter) *MaxOfRateLimiter {
	return &MaxOfRateLimiter{limiters: limiters}
}

// When implements RateLimiter.
func (r *MaxOfRateLimiter) When(item string) time.Duration {
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(item))
	}
	return d
}

// Forget implements RateLimiter.
func (r *MaxOfRateLimiter) Forget(item string) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues implements RateLimiter.
func (r *MaxOfRateLimiter) NumRequeues(item string) int {
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

// The parameters of DefaultControllerRateLimiter, as client-go's.
const (
	// DefaultItemBaseDelay is the per-item backoff's first wait.
	DefaultItemBaseDelay = 5 * time.Millisecond
	// DefaultItemMaxDelay caps the per-item backoff.
	DefaultItemMaxDelay = 1000 * time.Second
	// DefaultQPS is the overall bucket's rate, in tokens a second.
	DefaultQPS = 10
	// DefaultBurst is the overall bucket's size.
	DefaultBurst = 100
)

// DefaultControllerRateLimiter is client-go's: per item 5 ms * 2^failures
// up to 1000 s, and overall 10 qps with a burst of 100.
func DefaultControllerRateLimiter(h *sim.Host) RateLimiter {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter(DefaultItemBaseDelay, DefaultItemMaxDelay),
		NewBucketRateLimiter(h, DefaultQPS, DefaultBurst),
	)
}
