package nemesis

import (
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// PauseLeaderOnWrite is the nemesis of the zombie-leader scenarios: from
// from on, the nth time the leader of component sends a write as leader
// with verb (spoketrace.LeaderWrite), it freezes that leader's host for d,
// longer than the lease duration, at once: the write has left, its answer
// comes back to a frozen process, and so does the rest of the world's
// news. Another replica takes the Lease; the frozen one resumes with its
// overdue work (a SIGSTOP, a stop-the-world pause, a VM stalled). If no
// such write comes within a minute of from, it freezes the leader then.
func PauseLeaderOnWrite(c *Cluster, component, verb string, from time.Duration, nth int, d time.Duration) {
	w := c.World
	done, seen := false, 0
	pause := func(host string) {
		if done || host == "" {
			return
		}
		done = true
		w.Inject(sim.Fault{At: time.Duration(w.Now()), Kind: sim.FaultPause, Targets: [][]string{{host}}, For: d})
	}
	w.Subscribe(func(e *sim.Event) {
		lw, ok := e.Data.(*spoketrace.LeaderWrite)
		if done || !ok || lw.Component != component || lw.Verb != verb || w.Now() < sim.Time(from) {
			return
		}
		if seen++; seen < nth {
			return
		}
		host := w.HostName(e.Host)
		// After the write has left: the same instant, once its sender's
		// handler has returned.
		w.After(0, "nemesis-pause-leader", func() { pause(host) })
	})
	w.At(sim.Time(from+time.Minute), "nemesis-pause-leader", func() {
		if !done {
			pause(leaderOf(c, component))
		}
	})
}

// leaderOf is the host that leads component now, "" if none.
func leaderOf(c *Cluster, component string) string {
	if c.Leaders == nil {
		return ""
	}
	if l := c.Leaders.Leader(component); len(l) > 0 {
		return l[0]
	}
	return ""
}

// CutLeaderElection is a partial partition aimed at the controller
// manager's leader: at at, it cuts the link between the leader and the API
// server that last answered its leader elector (the elector's own
// connection, as through an L4 load balancer that put it on another API
// server than the controllers' connection), for d. The leader can no
// longer renew its Lease, and steps down at its renew deadline; its
// controllers may go on working through another API server until then,
// and another replica takes the Lease once it has not changed for the
// lease duration. When the two connections share the server, both are
// cut. electorPort is the port where the elector receives its answers.
func CutLeaderElection(c *Cluster, component string, electorPort func(leader string) string, at, d time.Duration) {
	w := c.World
	last := map[string]sim.HostID{} // leader host -> the server that last answered its elector
	w.Subscribe(func(e *sim.Event) {
		if e.Kind != sim.KindDeliver {
			return
		}
		name := w.HostName(e.Host)
		if e.Port == electorPort(name) {
			last[name] = e.Peer
		}
	})
	w.At(sim.Time(at), "nemesis-cut-leader-election", func() {
		leader := leaderOf(c, component)
		server, ok := last[leader]
		if leader == "" || !ok {
			return
		}
		w.Inject(sim.Fault{At: at, Kind: sim.FaultPartition, Targets: [][]string{{leader}, {w.HostName(server)}}, For: d})
	})
}
