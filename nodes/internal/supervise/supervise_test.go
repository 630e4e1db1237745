package supervise

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/sim"
)

type proc struct {
	n                int
	started, stopped bool
}

func (p *proc) Start() { p.started = true }
func (p *proc) Stop()  { p.stopped = true }

// TestRestart: Restart stops the current process and starts a new one,
// counting every start.
func TestRestart(t *testing.T) {
	var s Supervisor[*proc]
	s.New = func() *proc { return &proc{n: s.Started()} }
	s.Restart()
	first := s.Current()
	if first.n != 1 || !first.started || first.stopped {
		t.Fatalf("first process %+v", first)
	}
	s.Restart()
	if !first.stopped || s.Current().n != 2 || !s.Current().started || s.Started() != 2 {
		t.Fatalf("after a restart: first %+v, current %+v, started %d", first, s.Current(), s.Started())
	}
}

// TestRestartAfter: a process that exited is replaced after the delay,
// unless another has started meanwhile.
func TestRestartAfter(t *testing.T) {
	w := sim.NewWorld(1)
	var s Supervisor[*proc]
	w.MustAddHost(sim.HostSpec{Name: "c", Boot: func(h *sim.Host) {
		s.New = func() *proc { return &proc{n: s.Started()} }
		s.Restart()
		exited := s.Current()
		exited.Stop()
		s.RestartAfter(h, time.Second, "restart", exited)
		stale := s.Current()
		s.RestartAfter(h, 2*time.Second, "restart", stale)
	}})
	w.RunFor(500 * time.Millisecond)
	if s.Started() != 1 {
		t.Fatalf("started %d before the delay, want 1", s.Started())
	}
	w.RunFor(5 * time.Second)
	if s.Started() != 2 {
		t.Fatalf("started %d, want 2 (one restart; the second found another process current)", s.Started())
	}
}
