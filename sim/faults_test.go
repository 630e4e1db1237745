package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// inbox is a test process that records what reaches its "in" port.
type inbox struct{ got []int }

func twoHosts(t *testing.T) (*sim.World, *sim.Host, *sim.Host, *inbox, *inbox) {
	w := sim.NewWorld(1)
	ia, ib := &inbox{}, &inbox{}
	boot := func(in *inbox) func(h *sim.Host) {
		return func(h *sim.Host) {
			h.Handle("in", func(m *sim.Message) { in.got = append(in.got, m.Payload.(int)) })
		}
	}
	a := w.MustAddHost(sim.HostSpec{Name: "a", Boot: boot(ia)})
	b := w.MustAddHost(sim.HostSpec{Name: "b", Boot: boot(ib)})
	w.RunFor(0)
	return w, a, b, ia, ib
}

func TestCrashLosesUnsyncedWritesKeepsSynced(t *testing.T) {
	w, a, _, _, _ := twoHosts(t)
	d := a.Disk()
	d.Append("wal", []byte("one"))
	synced := false
	d.Sync(func() { synced = true })
	d.Append("wal", []byte("two")) // issued after the sync began: not covered
	w.RunFor(10 * time.Millisecond)
	require.True(t, synced)
	d.Append("wal", []byte("three"))
	require.Len(t, d.Records("wal"), 3, "a write is visible before it is durable")
	a.Crash()
	a.Restart()
	recs := a.Disk().Records("wal")
	require.Len(t, recs, 1)
	assert.Equal(t, "one", string(recs[0]))
	assert.Equal(t, uint64(2), a.Incarnation())
}

func TestSyncCallbackDroppedAfterCrash(t *testing.T) {
	w, a, _, _, _ := twoHosts(t)
	a.Disk().Append("wal", []byte("x"))
	called := false
	a.Disk().Sync(func() { called = true })
	a.Crash()
	a.Restart()
	w.RunFor(time.Second)
	assert.False(t, called, "an fsync of a dead incarnation must not call back")
	assert.Empty(t, a.Disk().Records("wal"))
}

func TestTornWriteAndWipe(t *testing.T) {
	w, a, _, _, _ := twoHosts(t)
	d := a.Disk()
	d.Append("wal", []byte("synced"))
	d.Sync(nil)
	w.RunFor(10 * time.Millisecond)
	d.Append("wal", []byte("unsynced-1"))
	d.Append("wal", []byte("unsynced-2"))
	w.Inject(sim.Fault{Kind: sim.FaultTorn, Targets: [][]string{{"a"}}})
	require.False(t, a.Up())
	a.Restart()
	recs := a.Disk().Records("wal")
	require.Len(t, recs, 3)
	assert.Equal(t, "unsynced-1", string(recs[1]))
	assert.Equal(t, "unsyn", string(recs[2]), "the last write is torn in half")

	w.Inject(sim.Fault{Kind: sim.FaultWipe, Targets: [][]string{{"a"}}, For: time.Second})
	w.RunFor(2 * time.Second)
	require.True(t, a.Up(), "restarted after For")
	assert.Empty(t, a.Disk().Files(), "the whole disk is gone")
}

func TestPartitionBlocksAndHealRestores(t *testing.T) {
	w, a, b, ia, ib := twoHosts(t)
	w.Inject(sim.Fault{Kind: sim.FaultPartition, Targets: [][]string{{"a"}, {"b"}}, For: time.Second})
	a.Send(b.ID(), "in", 1)
	b.Send(a.ID(), "in", 2)
	w.RunFor(500 * time.Millisecond)
	assert.Empty(t, ia.got)
	assert.Empty(t, ib.got)
	w.RunFor(time.Second) // healed at 1s
	a.Send(b.ID(), "in", 3)
	b.Send(a.ID(), "in", 4)
	w.RunFor(100 * time.Millisecond)
	assert.Equal(t, []int{3}, ib.got)
	assert.Equal(t, []int{4}, ia.got)
}

func TestInFlightMessageDroppedWhenPartitioned(t *testing.T) {
	w, a, b, _, ib := twoHosts(t)
	w.Network().SetDefault(sim.LinkSpec{Latency: 100 * time.Millisecond})
	a.Send(b.ID(), "in", 1)
	w.RunFor(50 * time.Millisecond)
	w.Inject(sim.Fault{Kind: sim.FaultIsolate, Targets: [][]string{{"b"}}})
	w.RunFor(time.Second)
	assert.Empty(t, ib.got)
}

func TestOneWayCutBlocksOneDirectionOnly(t *testing.T) {
	w, a, b, ia, ib := twoHosts(t)
	w.Inject(sim.Fault{Kind: sim.FaultOneWay, Targets: [][]string{{"a"}, {"b"}}})
	a.Send(b.ID(), "in", 1)
	b.Send(a.ID(), "in", 2)
	w.RunFor(100 * time.Millisecond)
	assert.Empty(t, ib.got, "a->b is cut")
	assert.Equal(t, []int{2}, ia.got, "b->a still flows")
	w.Inject(sim.Fault{Kind: sim.FaultHeal})
	a.Send(b.ID(), "in", 3)
	w.RunFor(100 * time.Millisecond)
	assert.Equal(t, []int{3}, ib.got)
}

func TestPauseDefersDeliveriesAndTimers(t *testing.T) {
	w, a, b, _, ib := twoHosts(t)
	fired := sim.Time(-1)
	b.After(100*time.Millisecond, "t", func() { fired = w.Now() })
	w.Inject(sim.Fault{Kind: sim.FaultPause, Targets: [][]string{{"b"}}, For: time.Second})
	a.Send(b.ID(), "in", 1)
	w.RunFor(900 * time.Millisecond)
	assert.Empty(t, ib.got, "a paused host receives nothing")
	assert.Equal(t, sim.Time(-1), fired, "a paused host's timers wait")
	w.RunFor(200 * time.Millisecond)
	assert.Equal(t, []int{1}, ib.got)
	assert.Equal(t, sim.Time(time.Second), fired, "the timer fires on resume")
}

func TestRoleRuleRefusesAndTraces(t *testing.T) {
	w := sim.NewWorld(1)
	got := 0
	boot := func(h *sim.Host) { h.Handle("client", func(*sim.Message) { got++ }) }
	etcd := w.MustAddHost(sim.HostSpec{Name: "etcd-1", Role: "etcd", Boot: boot})
	api := w.MustAddHost(sim.HostSpec{Name: "api-1", Role: "apiserver", Boot: boot})
	kubelet := w.MustAddHost(sim.HostSpec{Name: "node-1", Role: "kubelet", Boot: boot})
	w.Network().AllowOnly("client", "apiserver")
	refused := 0
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindRefuse {
			refused++
			assert.Equal(t, kubelet.ID(), e.Host)
		}
	})
	w.RunFor(0)
	api.Send(etcd.ID(), "client", 1)
	kubelet.Send(etcd.ID(), "client", 2)
	w.RunFor(time.Second)
	assert.Equal(t, 1, got)
	assert.Equal(t, 1, refused)
}

func TestRPCTimeoutAndStaleReply(t *testing.T) {
	w := sim.NewWorld(1)
	var client *sim.RPC
	var results []string
	srv := w.MustAddHost(sim.HostSpec{Name: "srv", Boot: func(h *sim.Host) {
		sim.Serve(h, "svc", func(q *sim.Request) {
			h.After(q.Body.(time.Duration), "work", func() { q.Reply("ok") })
		})
	}})
	cli := w.MustAddHost(sim.HostSpec{Name: "cli", Boot: func(h *sim.Host) { client = sim.NewRPC(h, "reply") }})
	w.RunFor(0)
	call := func(work time.Duration) {
		client.Call(srv.ID(), "svc", work, 100*time.Millisecond, func(resp any, err error) {
			if err != nil {
				results = append(results, err.Error())
				return
			}
			results = append(results, resp.(string))
		})
	}
	call(10 * time.Millisecond)
	w.RunFor(time.Second)
	call(500 * time.Millisecond)
	w.RunFor(time.Second)
	assert.Equal(t, []string{"ok", sim.ErrTimeout.Error()}, results)

	// A reply to a call made before the caller crashed is dropped as stale.
	stale := 0
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindDrop && e.Name == "stale" {
			stale++
		}
	})
	call(50 * time.Millisecond)
	w.RunFor(10 * time.Millisecond)
	cli.Crash()
	cli.Restart()
	w.RunFor(time.Second)
	assert.Equal(t, 1, stale)
	assert.Len(t, results, 2, "the dead incarnation's continuation never runs")
}

func TestTimerDiesWithIncarnation(t *testing.T) {
	w, a, _, _, _ := twoHosts(t)
	fired := 0
	tm := a.NewTimer("t", func() { fired++ })
	tm.Reset(time.Second)
	require.True(t, tm.Armed())
	a.Crash()
	a.Restart()
	tm.Reset(time.Second)
	w.RunFor(3 * time.Second)
	assert.Zero(t, fired)
}

func TestWorldEventOrderIsTimeThenInsertion(t *testing.T) {
	w := sim.NewWorld(1)
	var order []string
	w.At(10, "b", func() { order = append(order, "b") })
	w.At(5, "a", func() { order = append(order, "a") })
	w.At(10, "c", func() { order = append(order, "c") })
	w.RunFor(time.Second)
	assert.Equal(t, []string{"a", "b", "c"}, order)
}

// TestInvalidFaultDoesNothing: a fault a nemesis built wrong (here a
// crash with no target group) changes nothing, and the trace says so.
func TestInvalidFaultDoesNothing(t *testing.T) {
	w, a, _, _, _ := twoHosts(t)
	var names []string
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault {
			names = append(names, e.Name)
		}
	})
	w.Inject(sim.Fault{Kind: sim.FaultCrash})
	assert.True(t, a.Up())
	require.Equal(t, []string{"crash-invalid"}, names)
	assert.True(t, sim.ParseFaultEvent(names[0]).Unresolved)
	assert.False(t, sim.ParseFaultEvent(names[0]).Starts())
}
