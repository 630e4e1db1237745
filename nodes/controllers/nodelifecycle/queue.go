package nodelifecycle

import (
	"slices"
	"time"

	"github.com/kubesim/kubesim/model"
)

// tokenBucket is flowcontrol's token bucket rate limiter on virtual time
// (golang.org/x/time/rate's AllowN): qps tokens a second, at most burst,
// full at first. A qps of 0 or less never accepts (NewFakeNeverRateLimiter).
type tokenBucket struct {
	qps, burst, tokens float64
	last               model.Time
}

func newTokenBucket(qps float64, burst int, now model.Time) *tokenBucket {
	return &tokenBucket{qps: qps, burst: float64(burst), tokens: float64(burst), last: now}
}

// tryAccept takes a token if one is there.
func (b *tokenBucket) tryAccept(now model.Time) bool {
	if b.qps <= 0 {
		return false
	}
	if now > b.last {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.qps)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// evictionRateLimiterBurst is the burst of every tainting rate limiter
// (scheduler.EvictionRateLimiterBurst).
const evictionRateLimiterBurst = 1

// timedValue is a queued node, as scheduler.TimedValue.
type timedValue struct {
	value     string
	addedAt   model.Time
	processAt model.Time
	seq       uint64
}

// rateLimitedQueue is a zone's tainting queue, as RateLimitedTimedQueue: a
// unique queue ordered by processAt (then by arrival) drained through a
// token bucket. A value stays in the set after it was processed, so that
// it is not queued again until remove.
type rateLimitedQueue struct {
	queue   []timedValue
	set     map[string]bool
	seq     uint64
	qps     float64
	limiter *tokenBucket
}

func newRateLimitedQueue(qps float64, now model.Time) *rateLimitedQueue {
	return &rateLimitedQueue{set: map[string]bool{}, qps: qps, limiter: newTokenBucket(qps, evictionRateLimiterBurst, now)}
}

func (q *rateLimitedQueue) len() int { return len(q.queue) }

func (q *rateLimitedQueue) sort() {
	slices.SortStableFunc(q.queue, func(a, b timedValue) int {
		if a.processAt != b.processAt {
			if a.processAt < b.processAt {
				return -1
			}
			return 1
		}
		if a.seq < b.seq {
			return -1
		}
		if a.seq > b.seq {
			return 1
		}
		return 0
	})
}

// add queues value unless it is in the set, reporting whether it did.
func (q *rateLimitedQueue) add(value string, now model.Time) bool {
	if q.set[value] {
		return false
	}
	q.seq++
	q.queue = append(q.queue, timedValue{value: value, addedAt: now, processAt: now, seq: q.seq})
	q.set[value] = true
	q.sort()
	return true
}

// remove takes value off the queue and out of the set.
func (q *rateLimitedQueue) remove(value string) bool {
	delete(q.set, value)
	return q.removeFromQueue(value)
}

// removeFromQueue takes value off the queue but keeps it in the set.
func (q *rateLimitedQueue) removeFromQueue(value string) bool {
	for i := range q.queue {
		if q.queue[i].value == value {
			q.queue = slices.Delete(q.queue, i, i+1)
			return true
		}
	}
	return false
}

// try processes the head of the queue while the limiter allows and the
// head is due, as Try: fn's done(ok, wait) either removes the value or
// retries it after wait; finished runs when the pass over this queue ends.
func (q *rateLimitedQueue) try(now func() model.Time, fn func(value string, done func(ok bool, wait time.Duration)), finished func()) {
	if len(q.queue) == 0 || !q.limiter.tryAccept(now()) || now().Before(q.queue[0].processAt) {
		finished()
		return
	}
	head := q.queue[0]
	fn(head.value, func(ok bool, wait time.Duration) {
		if ok {
			q.removeFromQueue(head.value)
		} else {
			for i := range q.queue {
				if q.queue[i].value == head.value {
					q.queue[i].processAt = now().Add(wait + 1)
				}
			}
			q.sort()
		}
		q.try(now, fn, finished)
	})
}

// swapLimiter changes the rate, as SwapLimiter: 0 or less stops tainting;
// a new bucket starts empty if the old one was.
func (q *rateLimitedQueue) swapLimiter(qps float64, now model.Time) {
	if q.qps == qps {
		return
	}
	next := newTokenBucket(qps, evictionRateLimiterBurst, now)
	if qps > 0 && !q.limiter.tryAccept(now) {
		next.tryAccept(now)
	}
	q.qps, q.limiter = qps, next
}
