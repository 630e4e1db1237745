package kubeproxy

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Runner is the iptables proxier's BoundedFrequencyRunner
// (pkg/util/async/bounded_frequency_runner.go) as a pure state machine on
// a monotonic clock: it decides when the sync function runs, and its
// owner runs it and arms a timer at Next.
//
// Runs are at least MinInterval apart, except that up to Burst may follow
// each other at once: a token bucket refilled one token per MinInterval up
// to Burst (client-go's token bucket rate limiter; the bucket starts
// full). A request that the bucket refuses is coalesced with every other
// into a run when the timer fires, MinInterval after the last run (or
// sooner, when a later request finds a whole token). With no request, a
// run happens MaxInterval after the last one.
//
// Time is the caller's (the host's monotonic clock), so the runner has no
// timer of its own and tests drive it by hand.
type Runner struct {
	minInterval, maxInterval time.Duration
	burst                    int
	// credit is the bucket's content measured in time: a token is worth
	// minInterval, so the arithmetic is exact.
	credit   time.Duration
	filledAt sim.Time
	lastRun  sim.Time
	next     sim.Time
}

// NewRunner makes a runner whose loop starts at now: the first periodic run
// is due at now+maxInterval, as Loop arms its timer.
func NewRunner(minInterval, maxInterval time.Duration, burst int, now sim.Time) *Runner {
	if maxInterval < minInterval {
		panic("kubeproxy: a runner's maxInterval must be >= its minInterval")
	}
	r := &Runner{minInterval: minInterval, maxInterval: maxInterval, burst: max(burst, 1),
		filledAt: now, lastRun: now, next: now.Add(maxInterval)}
	r.credit = time.Duration(r.burst) * minInterval
	return r
}

// Next is when the runner's timer fires: the caller calls Try then.
func (r *Runner) Next() sim.Time { return r.next }

// LastRun is when the last run happened (or the runner started).
func (r *Runner) LastRun() sim.Time { return r.lastRun }

// Try is tryRun, for a request (Run) or the timer firing: it reports
// whether the function runs now. If it does, the next periodic run is due
// maxInterval from now; if not, the timer moves to the next possible run
// when that is sooner than the one scheduled.
func (r *Runner) Try(now sim.Time) bool {
	if r.tryAccept(now) {
		r.lastRun = now
		r.next = now.Add(r.maxInterval)
		return true
	}
	possible := r.lastRun.Add(r.minInterval)
	if possible < r.next {
		r.next = possible
	}
	return false
}

// tryAccept takes a token if the bucket has one.
func (r *Runner) tryAccept(now sim.Time) bool {
	if r.minInterval == 0 {
		return true
	}
	full := time.Duration(r.burst) * r.minInterval
	r.credit = min(full, r.credit+now.Sub(r.filledAt))
	r.filledAt = now
	if r.credit < r.minInterval {
		return false
	}
	r.credit -= r.minInterval
	return true
}
