package clientgo

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// spyClock is k8s.io/utils' FakeClock that also reports the duration of
// every timer armed on it, by NewTimer or by Reset: the reflector arms
// timers on its clock only for its backoff (wait.BackoffUntil and the
// watch loop call backoffManager.Backoff(), which is clock.NewTimer and
// then Timer.Reset in apimachinery pkg/util/wait/backoff.go
// exponentialBackoffManagerImpl.Backoff), so the reports are the backoffs.
// With armed set, each report is sent there (the reflector blocks until the
// test takes it); otherwise it is appended to durations.
type spyClock struct {
	*testingclock.FakeClock
	armed     chan time.Duration
	stop      chan struct{} // with armed: closed when the test stops taking reports
	mu        sync.Mutex
	durations []time.Duration
}

var _ clock.WithTicker = &spyClock{}

func newSpyClock(armed chan time.Duration) *spyClock {
	return &spyClock{FakeClock: testingclock.NewFakeClock(time.Unix(1_700_000_000, 0)), armed: armed}
}

func (c *spyClock) report(d time.Duration) {
	if c.armed != nil {
		select {
		case c.armed <- d:
		case <-c.stop:
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.durations = append(c.durations, d)
}

// NewTimer arms a fake timer and reports d.
func (c *spyClock) NewTimer(d time.Duration) clock.Timer {
	t := c.FakeClock.NewTimer(d)
	c.report(d)
	return &spyTimer{Timer: t, c: c}
}

// take returns the durations reported so far and forgets them.
func (c *spyClock) take() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.durations
	c.durations = nil
	return d
}

type spyTimer struct {
	clock.Timer
	c *spyClock
}

func (t *spyTimer) Reset(d time.Duration) bool {
	ok := t.Timer.Reset(d)
	t.c.report(d)
	return ok
}
