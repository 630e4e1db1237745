package client

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Backoff is wait.Backoff: Duration grows by Factor at every Step, up to
// Cap, for at most Steps steps; each step's wait gets a random extra of up
// to Jitter*duration.
type Backoff struct {
	// Duration is the initial wait.
	Duration time.Duration
	// Factor multiplies Duration after each step (0 or 1: constant).
	Factor float64
	// Jitter adds up to Jitter*duration at random to each wait.
	Jitter float64
	// Steps bounds the number of steps (for RetryOnConflict: attempts).
	Steps int
	// Cap bounds Duration; once reached, Steps drops to zero (as
	// wait.Backoff), after which Step keeps returning the capped wait.
	Cap time.Duration
}

// Step returns the next wait, drawing jitter from rnd, and advances b,
// exactly as wait.Backoff.Step does.
func (b *Backoff) Step(rnd *sim.Stream) time.Duration {
	if b.Steps < 1 {
		return jitter(b.Duration, b.Jitter, rnd)
	}
	b.Steps--
	d := b.Duration
	if b.Factor != 0 {
		b.Duration = time.Duration(float64(b.Duration) * b.Factor)
		if b.Cap > 0 && b.Duration > b.Cap {
			b.Duration = b.Cap
			b.Steps = 0
		}
	}
	return jitter(d, b.Jitter, rnd)
}

// jitter is wait.Jitter: d plus a uniform extra in [0, factor*d).
func jitter(d time.Duration, factor float64, rnd *sim.Stream) time.Duration {
	if factor <= 0 {
		return d
	}
	return d + time.Duration(rnd.Float64()*factor*float64(d))
}

// Jitter is wait.Jitter on a seeded stream: d plus a uniform extra in
// [0, maxFactor*d); maxFactor <= 0 means 1, as in client-go.
func Jitter(d time.Duration, maxFactor float64, rnd *sim.Stream) time.Duration {
	if maxFactor <= 0 {
		maxFactor = 1
	}
	return jitter(d, maxFactor, rnd)
}
