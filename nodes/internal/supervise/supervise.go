// Package supervise runs a component's process on its host, one at a
// time, as systemd or the kubelet runs it: the kubelet and kube-proxy,
// which a restart-process fault restarts at once, and the scheduler and
// the controller manager, which exit on a lost leadership and are back
// after a delay.
package supervise

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Process is one run of a component's process.
type Process interface {
	comparable
	// Start begins the run.
	Start()
	// Stop ends it for good: nothing it armed acts again.
	Stop()
}

// Supervisor runs the processes New makes, one at a time. A Supervisor
// with New set is ready; Restart starts the first process.
type Supervisor[P Process] struct {
	// New makes the next process; Started already counts it.
	New     func() P
	cur     P
	started int
}

// Current returns the last process started (the zero P before the
// first).
func (s *Supervisor[P]) Current() P { return s.cur }

// Started counts the processes started on this host incarnation, the
// first one included.
func (s *Supervisor[P]) Started() int { return s.started }

// Restart stops the current process, if there is one, and starts a new
// one.
func (s *Supervisor[P]) Restart() {
	var none P
	if s.cur != none {
		s.cur.Stop()
	}
	s.start()
}

// RestartAfter starts a new process after delay, on a timer of h named
// name, if p, a process that exited by itself, is still the current one
// then.
func (s *Supervisor[P]) RestartAfter(h *sim.Host, delay time.Duration, name string, p P) {
	h.After(delay, name, func() {
		if s.cur == p {
			s.start()
		}
	})
}

func (s *Supervisor[P]) start() {
	s.started++
	s.cur = s.New()
	s.cur.Start()
}
