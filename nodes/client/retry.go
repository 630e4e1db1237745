package client

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// DefaultRetry is retry.DefaultRetry, the backoff for conflicts: 5 attempts
// 10 ms apart, with 10% jitter.
var DefaultRetry = Backoff{Steps: 5, Duration: 10 * time.Millisecond, Factor: 1.0, Jitter: 0.1}

// DefaultBackoff is retry.DefaultBackoff, for errors that need a longer
// pause: 4 attempts, 10 ms then growing fivefold, with 10% jitter.
var DefaultBackoff = Backoff{Steps: 4, Duration: 10 * time.Millisecond, Factor: 5.0, Jitter: 0.1}

// RetryOnConflict is the callback form of retry.RetryOnConflict: it runs
// fn, and while fn's done reports a Conflict, waits the backoff's next step
// and runs fn again, for at most backoff.Steps attempts. finished gets nil
// on success, fn's first non-conflict error, or after the last attempt the
// last conflict (as client-go returns it). Jitter comes from h's "retry"
// stream. fn should Get the object afresh, modify it and Update it.
func RetryOnConflict(h *sim.Host, backoff Backoff, fn func(done func(err error)), finished func(err error)) {
	OnError(h, backoff, IsConflict, fn, finished)
}

// RetryOnConflict runs RetryOnConflict on the client's host.
func (c *Client) RetryOnConflict(backoff Backoff, fn func(done func(err error)), finished func(err error)) {
	RetryOnConflict(c.h, backoff, fn, finished)
}

// OnError is retry.OnError: like RetryOnConflict, retrying while
// retriable(err) holds.
func OnError(h *sim.Host, backoff Backoff, retriable func(error) bool, fn func(done func(err error)), finished func(err error)) {
	b := backoff
	rnd := h.Rand("retry")
	var lastErr error
	var attempt func()
	attempt = func() {
		if b.Steps <= 0 {
			// Out of steps (none given, or a Cap reached): client-go
			// returns the last retriable error, nil if there was none.
			finished(lastErr)
			return
		}
		called := false
		fn(func(err error) {
			if called {
				return
			}
			called = true
			switch {
			case err == nil, !retriable(err):
				finished(err)
			case b.Steps == 1:
				finished(err) // the last conflict, as client-go returns it
			default:
				lastErr = err
				h.After(b.Step(rnd), "retry-backoff", attempt)
			}
		})
	}
	attempt()
}
