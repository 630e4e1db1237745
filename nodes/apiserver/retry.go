package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// The Cacher's reflector retries a watch that ended with an internal error
// instead of ending ListAndWatch: k8s.io/apiserver,
// pkg/storage/cacher/cacher.go, NewCacherFromConfig, sets
// reflector.MaxInternalErrorRetryDuration to 30 s ("When etcd loses leader
// for 3 cycles, it returns error "no leader". We don't want to terminate
// all watchers as recreating all watchers puts high load on api-server."),
// and client-go's Reflector.watch retries while a RetryWithDeadline with
// a one-minute reset period allows it (tools/cache/reflector.go, watch;
// tools/cache/retry_with_deadline.go). The etcd3 watcher turns "etcdserver:
// no leader" into such an error (pkg/storage/etcd3/watcher.go,
// transformErrorToEvent: NewInternalError).
const (
	maxInternalErrorRetryDuration = 30 * time.Second
	internalErrorResetPeriod      = time.Minute
)

// internalErrorRetry is client-go's retryWithDeadlineImpl on virtual time,
// for one ListAndWatch of a cache (a relist starts a new one).
type internalErrorRetry struct {
	first, last sim.Time
	series      bool // first and last are set
}

// after records an internal error at now; a series whose last error is a
// reset period old starts over (retryWithDeadlineImpl.After).
func (r *internalErrorRetry) after(now sim.Time) {
	if r.series && now.Sub(r.last) >= internalErrorResetPeriod {
		r.series = false
	}
	if !r.series {
		r.first, r.series = now, true
	}
	r.last = now
}

// shouldRetry reports whether the series began no longer than the maximum
// retry duration before now; when it did not, the series is forgotten
// (retryWithDeadlineImpl.ShouldRetry).
func (r *internalErrorRetry) shouldRetry(now sim.Time) bool {
	if now.Sub(r.first) <= maxInternalErrorRetryDuration {
		return true
	}
	r.series = false
	return false
}
