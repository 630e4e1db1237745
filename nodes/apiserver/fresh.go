package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// waiter is a read or watch waiting for the cache to reach a revision.
type waiter struct {
	rev   int64
	fn    func(*apiwire.Status)
	timer *sim.Timer
}

// fresh reports whether the cache can serve a read at rev: it is ready
// and has seen rev (the real watch cache's waitUntilFreshAndBlock).
func (c *cache) fresh(rev int64) bool {
	return c.ready && (c.rev >= rev || c.s.cfg.Ablations.Has(ablation.CacheIgnoresMinRV))
}

// waitFresh calls fn(nil) once the cache has seen revision rev (at once if
// it has), or fn with an error after FreshnessTimeout: 504 "Too large
// resource version", or 429 while the cache has not completed its first
// list.
func (c *cache) waitFresh(rev int64, fn func(*apiwire.Status)) {
	if c.fresh(rev) {
		fn(nil)
		return
	}
	w := &waiter{rev: rev, fn: fn}
	c.requestProgressWhileWaiting()
	w.timer = c.s.h.After(c.s.cfg.FreshnessTimeout, "apiserver-fresh-timeout", func() {
		if !c.dropWaiter(w) {
			return
		}
		if !c.ready {
			fn(cacheNotReady())
			return
		}
		fn(tooLargeRV(rev))
	})
	c.waiters = append(c.waiters, w)
}

// dropWaiter removes w and reports whether it was waiting.
func (c *cache) dropWaiter(w *waiter) bool {
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return true
		}
	}
	return false
}

// wake runs the waiters the cache can now serve, in arrival order.
func (c *cache) wake() {
	if len(c.waiters) == 0 {
		return
	}
	var ready, rest []*waiter
	for _, w := range c.waiters {
		if c.fresh(w.rev) {
			ready = append(ready, w)
		} else {
			rest = append(rest, w)
		}
	}
	c.waiters = rest
	for _, w := range ready {
		w.timer.Stop()
		w.fn(nil)
	}
}

// progressRequestPeriod is how often a cache with readers waiting for a
// revision asks its etcd member for progress (k8s.io/apiserver,
// pkg/storage/cacher/progress/watch_progress.go, progressRequestPeriod): on
// a quiet resource, only a progress notification tells the cache that it
// has caught up with a revision some other resource's write made.
const progressRequestPeriod = 100 * time.Millisecond

// requestProgressWhileWaiting arms the progress requester: every
// progressRequestPeriod, while readers wait, it asks the member of the
// cache's etcd watch for a progress notification.
func (c *cache) requestProgressWhileWaiting() {
	if c.progress == nil {
		c.progress = c.s.h.NewTimer("apiserver-progress-request", func() {
			if len(c.waiters) == 0 {
				return
			}
			if c.wh != nil {
				c.wh.RequestProgress()
			}
			c.progress.Reset(progressRequestPeriod)
		})
	}
	if !c.progress.Armed() {
		c.progress.Reset(progressRequestPeriod)
	}
}
