package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// daemon is a test host running two processes: "agent", which restarts
// alone, and a port handler that stands for everything else on the host.
type daemon struct {
	restarts    int // restarts of the current incarnation's agent
	incarnation uint64
	got         []int
}

func daemonWorld(t *testing.T) (*sim.World, *sim.Host, *daemon) {
	w := sim.NewWorld(1)
	d := &daemon{}
	h := w.MustAddHost(sim.HostSpec{Name: "node-1", Processes: []string{"agent"}, Boot: func(h *sim.Host) {
		d.restarts, d.incarnation = 0, h.Incarnation()
		h.Handle("in", func(m *sim.Message) { d.got = append(d.got, m.Payload.(int)) })
		h.OnProcessRestart("agent", func() { d.restarts++ })
	}})
	w.MustAddHost(sim.HostSpec{Name: "other"})
	w.RunFor(0)
	return w, h, d
}

func restartAgent() sim.Fault {
	return sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{"node-1"}}, Process: "agent"}
}

// TestRestartProcessKeepsTheHost: a restart-process fault runs the
// process's restart handler and nothing else: the host keeps its
// incarnation, its other handlers and its disk, and the trace shows a
// fault event on the host naming the process.
func TestRestartProcessKeepsTheHost(t *testing.T) {
	w, h, d := daemonWorld(t)
	h.Disk().Append("wal", []byte("x"))
	var faults []string
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault {
			faults = append(faults, string(sim.AppendTimeline(nil, w, e)))
		}
	})
	w.Inject(restartAgent())
	assert.Equal(t, 1, d.restarts)
	assert.Equal(t, uint64(1), h.Incarnation(), "the host did not restart")
	assert.Len(t, h.Disk().Records("wal"), 1, "unsynced writes survive: the host did not crash")
	other, _ := w.HostByName("other")
	other.Send(h.ID(), "in", 7)
	w.RunFor(time.Second)
	assert.Equal(t, []int{7}, d.got, "the host's other handlers run on")
	require.Len(t, faults, 1)
	assert.Equal(t, "      0    0.000000s  node-1  fault              restart-process process=agent", faults[0])
}

// TestRestartProcessNeedsARunningHost: a crashed host runs no process and
// a frozen one cannot restart one; after a reboot the new incarnation's
// handler is the one called.
func TestRestartProcessNeedsARunningHost(t *testing.T) {
	w, h, d := daemonWorld(t)
	traced := 0
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault && e.Name == string(sim.FaultRestartProcess) {
			traced++
		}
	})
	h.Pause()
	w.Inject(restartAgent())
	assert.Zero(t, d.restarts, "paused")
	h.Resume()
	h.Crash()
	w.Inject(restartAgent())
	assert.Zero(t, d.restarts, "crashed")
	assert.Zero(t, traced, "nothing happened, so nothing is traced")
	h.Restart()
	w.Inject(restartAgent())
	assert.Equal(t, uint64(2), d.incarnation)
	assert.Equal(t, 1, d.restarts)
	assert.Equal(t, 1, traced)
}

// TestOnProcessRestartNeedsTheDeclaration: a process the host's spec does
// not declare cannot register (a schedule could not have been checked
// against it).
func TestOnProcessRestartNeedsTheDeclaration(t *testing.T) {
	w := sim.NewWorld(1)
	w.MustAddHost(sim.HostSpec{Name: "h", Boot: func(h *sim.Host) { h.OnProcessRestart("agent", func() {}) }})
	assert.PanicsWithValue(t, "sim: host h registers a restart of process agent, which its HostSpec.Processes does not declare",
		func() { w.RunFor(0) })
}

// TestCheckTargetsKnowsTheProcesses: a schedule may restart a process its
// target declares, and is told which ones it has otherwise.
func TestCheckTargetsKnowsTheProcesses(t *testing.T) {
	w, _, _ := daemonWorld(t)
	ok, err := sim.ParseSchedule("s.txt", "1s restart-process node-1 process=agent\n")
	require.NoError(t, err)
	require.NoError(t, w.CheckTargets(ok))
	bad, err := sim.ParseSchedule("s.txt", "1s restart-process node-1 process=kubelet\n")
	require.NoError(t, err)
	assert.EqualError(t, w.CheckTargets(bad), `s.txt:1: restart-process at 1s: host node-1 runs no process "kubelet" that restarts alone (it has agent): name another process or host`)
}
