package client

import (
	"time"

	"github.com/kubesim/kubesim/trace/apiwire"
)

// MaxRetries is how many times a request answered with a Retry-After is
// sent again before its answer is returned (k8s.io/client-go,
// rest/request.go, NewRequest: maxRetries 10).
const MaxRetries = 10

// Do sends one raw request to the current replica, on the client's
// connection to it, and calls done with its response, or with an error: a
// *StatusError for a non-2xx answer, ErrConnectionLost or
// ErrConnectionReset when the connection died under it, ErrNoAnswer after
// Config.Timeout (when set). The request is retransmitted until answered,
// as TCP would; the API server serves it once (see apiserver's conn.go).
// An answer that asks to be retried (a 429 or 5xx with a Retry-After, such
// as a watch cache's "storage is (re)initializing") is not returned: the
// request is sent again after the Retry-After, up to MaxRetries times
// and, with Config.Timeout, only while that timeout has not passed since
// the first attempt, as client-go's rest.Request does for every verb, a
// watch included (rest/request.go, request and Watch; rest/with_retry.go,
// IsNextRetry, Before; checkWait). The typed verbs are built on it.
func (c *Client) Do(req *apiwire.Request, done func(*apiwire.Response, error)) {
	c.doRetrying(req, nil, done)
}

// doRetrying is Do; stopped, when set, reports that the caller has given
// the request up (client-go: its context is done), and then no further
// attempt is sent and the last answer is returned.
func (c *Client) doRetrying(req *apiwire.Request, stopped func() bool, done func(*apiwire.Response, error)) {
	start := c.h.Now()
	attempts := 0
	var attempt func(req *apiwire.Request)
	attempt = func(req *apiwire.Request) {
		c.send(req, func(resp *apiwire.Response, err error) {
			attempts++
			wait, ok := retryAfter(resp)
			switch {
			case !ok, attempts > MaxRetries, stopped != nil && stopped():
			case c.cfg.Timeout > 0 && c.h.Now().Add(wait).Sub(start) >= c.cfg.Timeout:
			default:
				c.h.After(wait, "api-retry-after", func() {
					if stopped != nil && stopped() {
						done(resp, err)
						return
					}
					again := *req // a new HTTP request, not a retransmission
					attempt(&again)
				})
				return
			}
			done(resp, err)
		})
	}
	attempt(req)
}

// retryAfter returns the wait an answer asks for before the request is
// sent again: a 429 or 5xx with a Retry-After (client-go's checkWait).
func retryAfter(resp *apiwire.Response) (time.Duration, bool) {
	if resp == nil || resp.Status.RetryAfterSeconds <= 0 {
		return 0, false
	}
	if c := resp.Status.Code; c != 429 && c < 500 {
		return 0, false
	}
	return time.Duration(resp.Status.RetryAfterSeconds) * time.Second, true
}
