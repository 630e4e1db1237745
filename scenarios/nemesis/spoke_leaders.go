package nemesis

import (
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// SpokeLeaders follows spoketrace.Leading events to know which replica of
// each leader-elected component leads now, so that a fault can target
// "scheduler-leader" or "controller-manager-leader" when it fires.
type SpokeLeaders struct {
	w *sim.World
	// leading maps component -> host name -> leads, in the order hosts
	// first reported.
	comps []string
	hosts [][]string
	leads [][]bool
}

// NewSpokeLeaders tracks the leaders of w's components.
func NewSpokeLeaders(w *sim.World) *SpokeLeaders { return &SpokeLeaders{w: w} }

// Observe consumes one trace event.
func (t *SpokeLeaders) Observe(e *sim.Event) {
	d, ok := e.Data.(*spoketrace.Leading)
	if !ok {
		return
	}
	host := t.w.HostName(e.Host)
	ci := -1
	for i, c := range t.comps {
		if c == d.Component {
			ci = i
		}
	}
	if ci < 0 {
		t.comps = append(t.comps, d.Component)
		t.hosts = append(t.hosts, nil)
		t.leads = append(t.leads, nil)
		ci = len(t.comps) - 1
	}
	for i, h := range t.hosts[ci] {
		if h == host {
			t.leads[ci][i] = d.Leading
			return
		}
	}
	t.hosts[ci] = append(t.hosts[ci], host)
	t.leads[ci] = append(t.leads[ci], d.Leading)
}

// Leader returns the live hosts of component that last said they lead (one,
// or none; more only while an old leader has not yet noticed it lost).
func (t *SpokeLeaders) Leader(component string) []string {
	var out []string
	for ci, c := range t.comps {
		if c != component {
			continue
		}
		for i, h := range t.hosts[ci] {
			if host, ok := t.w.HostByName(h); ok && host.Up() && t.leads[ci][i] {
				out = append(out, h)
			}
		}
	}
	return out
}
