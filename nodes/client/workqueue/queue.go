// Package workqueue is kubesim's client-go workqueue: a de-duplicating,
// delaying, rate-limited queue of string keys with callback-driven workers.
//
// As in client-go: an item added while queued is queued once; an item added
// while being processed is queued again only after Done; AddAfter keeps the
// earliest of several pending delays; AddRateLimited waits the rate
// limiter's delay. DefaultControllerRateLimiter's per-item exponential part
// is exact; its 10 qps / 100 burst bucket follows x/time/rate's Reserve
// (tokens refill continuously, a reservation waits for its token), which is
// what client-go uses, on virtual time.
package workqueue

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Queue is a rate-limited work queue on one host. Make it with New.
type Queue struct {
	h          *sim.Host
	name       string
	rl         RateLimiter
	queue      []string
	dirty      map[string]bool
	processing map[string]bool
	waiting    map[string]*waiter
	shutdown   bool

	workers int
	active  int
	process func(key string, done func(err error))
	kick    *sim.Timer

	// OnRetry, when set, is told of each key a worker's failed process
	// put back with the rate limiter's backoff, and of that backoff.
	OnRetry func(key string, err error, after time.Duration)
}

type waiter struct {
	at    sim.Time
	timer *sim.Timer
}

// New makes a queue named name (for timer names) with rate limiter rl
// (nil: DefaultControllerRateLimiter).
func New(h *sim.Host, name string, rl RateLimiter) *Queue {
	if rl == nil {
		rl = DefaultControllerRateLimiter(h)
	}
	q := &Queue{h: h, name: name, rl: rl, dirty: map[string]bool{}, processing: map[string]bool{}, waiting: map[string]*waiter{}}
	q.kick = h.NewTimer("workqueue-dispatch", q.dispatch)
	return q
}

// Add queues key unless it is already queued; a key being processed is
// queued again when it is Done.
func (q *Queue) Add(key string) {
	if q.shutdown || q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if q.processing[key] {
		return
	}
	q.queue = append(q.queue, key)
	q.wake()
}

// AddAfter adds key after d; of several pending delays the earliest wins.
func (q *Queue) AddAfter(key string, d time.Duration) {
	if q.shutdown {
		return
	}
	if d <= 0 {
		q.Add(key)
		return
	}
	at := q.h.Now().Add(d)
	if w, ok := q.waiting[key]; ok {
		if at >= w.at {
			return
		}
		w.at = at
		w.timer.Reset(d)
		return
	}
	w := &waiter{at: at}
	w.timer = q.h.NewTimer("workqueue-delay", func() {
		delete(q.waiting, key)
		q.Add(key)
	})
	q.waiting[key] = w
	w.timer.Reset(d)
}

// AddRateLimited adds key after the rate limiter's delay.
func (q *Queue) AddRateLimited(key string) { q.AddAfter(key, q.rl.When(key)) }

// Forget tells the rate limiter key succeeded: its backoff starts afresh.
func (q *Queue) Forget(key string) { q.rl.Forget(key) }

// NumRequeues returns key's failures since it was last forgotten.
func (q *Queue) NumRequeues(key string) int { return q.rl.NumRequeues(key) }

// Len returns how many keys are queued (not waiting, not processing).
func (q *Queue) Len() int { return len(q.queue) }

// Get takes the next key, marking it as being processed, or returns false
// when none is queued. The caller must call Done(key).
func (q *Queue) Get() (string, bool) {
	if len(q.queue) == 0 {
		return "", false
	}
	key := q.queue[0]
	q.queue = q.queue[1:]
	q.processing[key] = true
	delete(q.dirty, key)
	return key, true
}

// Done ends the processing of key, queueing it again if it was added
// meanwhile.
func (q *Queue) Done(key string) {
	delete(q.processing, key)
	if q.dirty[key] {
		q.queue = append(q.queue, key)
		q.wake()
	}
}

// ShutDown stops accepting keys and stops the workers from taking more.
func (q *Queue) ShutDown() {
	q.shutdown = true
	for _, k := range sim.SortedKeys(q.waiting) {
		q.waiting[k].timer.Stop()
	}
	q.waiting = map[string]*waiter{}
}

// ShuttingDown reports whether ShutDown was called.
func (q *Queue) ShuttingDown() bool { return q.shutdown }

// Run starts workers callback-driven workers: each takes a key, calls
// process, and when process calls done, handles the error as a controller's
// processNextWorkItem does (nil: Forget; otherwise AddRateLimited), calls
// Done and takes the next key. At most workers keys are processed at once.
func (q *Queue) Run(workers int, process func(key string, done func(err error))) {
	q.workers, q.process = workers, process
	q.wake()
}

// wake schedules a dispatch, as a worker goroutine would wake up.
func (q *Queue) wake() {
	if q.process != nil && !q.kick.Armed() {
		q.kick.Reset(0)
	}
}

func (q *Queue) dispatch() {
	for !q.shutdown && q.active < q.workers {
		key, ok := q.Get()
		if !ok {
			return
		}
		q.active++
		called := false
		q.process(key, func(err error) {
			if called {
				return
			}
			called = true
			q.active--
			if err != nil {
				d := q.rl.When(key)
				q.AddAfter(key, d)
				if q.OnRetry != nil {
					q.OnRetry(key, err, d)
				}
			} else {
				q.Forget(key)
			}
			q.Done(key)
			q.wake()
		})
	}
}
