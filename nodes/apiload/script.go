package apiload

import (
	"cmp"
	"time"

	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Step is one action of an operator's script: at virtual time At, Do
// makes its API calls through c and calls done once, with nil when the
// action took effect. A failed step is tried again after ScriptRetry until
// it succeeds, so a step survives API outages; the steps after it wait
// (an operator does things in order). Do must be safe to repeat: e.g. a
// create treats AlreadyExists as done.
type Step struct {
	At   time.Duration
	Name string
	Do   func(c *client.Client, done func(error))
}

// ScriptRetry is how long a script waits before trying a failed step again.
const ScriptRetry = 2 * time.Second

// ScriptConfig configures BootScript.
type ScriptConfig struct {
	// Name is the client's name in the trace; empty means the host's.
	Name    string
	Servers []sim.HostID
	// User is the identity; default DefaultUser ("admin").
	User  string
	Steps []Step
}

// BootScript returns the Boot function of an operator host that performs
// Steps in order, each at its time or as soon as the previous one
// succeeded, whichever is later. A crash of the host restarts the script
// from the first step (steps are idempotent).
func BootScript(cfg ScriptConfig) func(h *sim.Host) {
	cfg.User = cmp.Or(cfg.User, DefaultUser)
	return func(h *sim.Host) {
		c := client.New(h, client.Config{Name: defaults.HostName(cfg.Name, h), User: cfg.User, Servers: cfg.Servers})
		s := &script{h: h, c: c, steps: cfg.Steps}
		s.schedule()
	}
}

type script struct {
	h     *sim.Host
	c     *client.Client
	steps []Step
	next  int
}

// schedule runs the next step at its time.
func (s *script) schedule() {
	if s.next >= len(s.steps) {
		return
	}
	st := s.steps[s.next]
	wait := time.Duration(sim.Time(st.At) - s.h.Now())
	s.h.After(max(wait, 0), "script-"+st.Name, s.run)
}

// run tries the current step once.
func (s *script) run() {
	st := s.steps[s.next]
	called := false
	st.Do(s.c, func(err error) {
		if called {
			return
		}
		called = true
		if err != nil {
			s.h.After(ScriptRetry, "script-retry-"+st.Name, s.run)
			return
		}
		s.next++
		s.schedule()
	})
}
