package cache

import (
	"time"

	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// The reflector's backoff, as client-go's NewReflector sets it up:
// wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0).
const (
	BackoffInitial = 800 * time.Millisecond
	BackoffMax     = 30 * time.Second
	BackoffReset   = 2 * time.Minute
	BackoffFactor  = 2.0
	BackoffJitter  = 1.0
)

// BackoffManager is wait's exponentialBackoffManagerImpl on virtual time.
type BackoffManager struct {
	initial, reset time.Duration
	b              client.Backoff
	last           sim.Time
	started        bool
	rnd            *sim.Stream
}

// NewBackoffManager makes an exponential backoff manager drawing jitter
// from rnd.
func NewBackoffManager(initial, max, reset time.Duration, factor, jitter float64, rnd *sim.Stream) *BackoffManager {
	return &BackoffManager{initial: initial, reset: reset, rnd: rnd,
		b: client.Backoff{Duration: initial, Factor: factor, Jitter: jitter, Steps: 1 << 31, Cap: max}}
}

// Next returns the next wait at time now: back to the initial value when
// the last backoff began more than the reset duration ago.
func (m *BackoffManager) Next(now sim.Time) time.Duration {
	if !m.started || now.Sub(m.last) > m.reset {
		m.b.Steps = 1 << 31
		m.b.Duration = m.initial
	}
	m.started = true
	m.last = now
	return m.b.Step(m.rnd)
}
