package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// The API server's BUGGIFY points (sim.BuggifyPoints says what each
// stands for): a request refused early with 429, and a watch cache that
// falls behind etcd. With BUGGIFY off each asks and does what the server
// always did.

// early429 is the refusal of API Priority and Fairness when a request's
// priority level can neither seat nor queue it (k8s.io/apiserver,
// pkg/server/filters/priority-and-fairness.go, tooManyRequests): 429 with
// the dropped-requests tracker's Retry-After (retryAfter, which starts
// at 1 s: pkg/util/flowcontrol/dropped_requests_tracker.go), in whole
// seconds.
func early429(retryAfter time.Duration) *apiwire.Status {
	st := errStatus(429, apiwire.ReasonTooManyRequests, "Too many requests, please try again later.")
	st.RetryAfterSeconds = max(int(retryAfter/time.Second), 1)
	return st
}

// heldResp is an etcd watch response that waits to reach the cache.
type heldResp struct {
	stream uint64
	r      etcd.WatchResponse
}

// receive takes an etcd watch response of the cache's stream: it handles
// it at once, unless the cache is behind (sim.BuggifyCacheBehind): then
// it waits behind the responses before it. When the point fires for a
// response with events, the cache falls behind for the delay drawn;
// responses of a stream the cache has left meanwhile are dropped when
// their turn comes (handleResp), as they would have been at once.
func (c *cache) receive(stream uint64, r etcd.WatchResponse) {
	if c.behind != nil {
		c.behind = append(c.behind, heldResp{stream, r})
		return
	}
	if len(r.Events) == 0 {
		c.handleResp(stream, r)
		return
	}
	d, ok := c.s.h.BuggifyDelay(sim.BuggifyCacheBehind)
	if !ok {
		c.handleResp(stream, r)
		return
	}
	c.behind = []heldResp{{stream, r}}
	c.s.h.After(d, "apiserver-cache-behind", func() {
		held := c.behind
		c.behind = nil
		for _, x := range held {
			c.handleResp(x.stream, x.r)
		}
	})
}
