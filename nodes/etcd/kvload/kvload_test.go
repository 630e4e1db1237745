package kvload

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// record is what a test keeps of a run's trace.
type record struct {
	calls   map[string]*etcdtrace.Call
	returns map[string]*etcdtrace.Return
	applies map[int64][]etcdtrace.Change // by revision, "k" prefix only
	compact []int64
	opens   []etcdtrace.WatchOpen
	resps   []etcdtrace.WatchResp
}

type world struct {
	w       *sim.World
	members []sim.HostID
	rec     *record
}

// newWorld builds 3 members (hosts 0-2), then the processes of add.
func newWorld(seed uint64, add func(w *sim.World, eps []sim.HostID)) *world {
	w := sim.NewWorld(seed)
	var peers []etcd.Peer
	for i := 0; i < 3; i++ {
		peers = append(peers, etcd.Peer{ID: uint64(i + 1), Host: sim.HostID(i), Name: fmt.Sprintf("etcd-%d", i+1)})
	}
	var eps []sim.HostID
	for _, p := range peers {
		w.MustAddHost(sim.HostSpec{Name: p.Name, Role: "etcd", Boot: etcd.Boot(etcd.Config{ID: p.ID, Peers: peers})})
		eps = append(eps, p.Host)
	}
	add(w, eps)
	rec := &record{calls: map[string]*etcdtrace.Call{}, returns: map[string]*etcdtrace.Return{}, applies: map[int64][]etcdtrace.Change{}}
	w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *etcdtrace.Call:
			c := *d
			rec.calls[fmt.Sprintf("%s/%d", d.Client, d.Op)] = &c
		case *etcdtrace.Return:
			r := *d
			rec.returns[fmt.Sprintf("%s/%d", d.Client, d.Op)] = &r
		case *etcdtrace.Apply:
			if d.Compact != 0 {
				rec.compact = append(rec.compact, d.Compact)
			}
			var ks []etcdtrace.Change
			for _, c := range d.Changes {
				if strings.HasPrefix(c.Key, "k") {
					ks = append(ks, c)
				}
			}
			if len(ks) > 0 {
				rec.applies[d.Rev] = ks
			}
		case *etcdtrace.WatchOpen:
			rec.opens = append(rec.opens, *d)
		case *etcdtrace.WatchResp:
			rec.resps = append(rec.resps, *d)
		}
	})
	return &world{w: w, members: eps, rec: rec}
}

func TestWorkloadWithFaults(t *testing.T) {
	wd := newWorld(1, func(w *sim.World, eps []sim.HostID) {
		for i := 0; i < 3; i++ {
			name := fmt.Sprintf("c%d", i)
			w.MustAddHost(sim.HostSpec{Name: name, Role: "client", Boot: BootClient(ClientConfig{Name: name, Endpoints: eps})})
		}
		w.MustAddHost(sim.HostSpec{Name: "watcher", Role: "client", Boot: BootWatcher(WatcherConfig{Endpoints: eps})})
	})
	// Crash the member the watcher watches, then cut a member off.
	var watched string
	wd.w.AddResolver(func(name string) ([]sim.HostID, bool) {
		if name != "watched" {
			return nil, false
		}
		watched = wd.rec.opens[len(wd.rec.opens)-1].Member
		h, _ := wd.w.HostByName(watched)
		return []sim.HostID{h.ID()}, true
	})
	wd.w.Apply(sim.Schedule{
		{At: 4 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"watched"}}, For: 3 * time.Second},
		{At: 12 * time.Second, Kind: sim.FaultIsolate, Targets: [][]string{{"etcd-2"}}, For: 4 * time.Second},
		{At: 20 * time.Second, Kind: sim.FaultTorn, Targets: [][]string{{"etcd-3"}}, For: 2 * time.Second},
	})
	wd.w.RunFor(30 * time.Second)
	rec := wd.rec

	// Every call has its return, except possibly the last few in flight.
	outcomes := map[etcdtrace.Outcome]int{}
	for k, c := range rec.calls {
		r, ok := rec.returns[k]
		if !ok {
			continue
		}
		outcomes[r.Outcome]++
		if r.Outcome == etcdtrace.OutcomeOK && c.Kind == etcdtrace.OpGet && r.Found {
			require.Regexp(t, `^c\d-\d+(\.\d)?$`, r.Value, "a read returns a written value")
		}
	}
	require.Len(t, rec.returns, len(rec.returns))
	require.GreaterOrEqual(t, len(rec.calls)-len(rec.returns), 0)
	require.LessOrEqual(t, len(rec.calls)-len(rec.returns), 3)
	require.Greater(t, outcomes[etcdtrace.OutcomeOK], 500, "outcomes: %v", outcomes)

	// The watcher reopened after its member crashed, and across its streams
	// it saw every change exactly once, in revision order.
	require.GreaterOrEqual(t, len(rec.opens), 2)
	require.Equal(t, watched, rec.opens[0].Member)
	require.NotEqual(t, watched, rec.opens[1].Member)
	var got []etcdtrace.Change
	for _, r := range rec.resps {
		require.False(t, r.Canceled)
		got = append(got, r.Events...)
	}
	require.NotEmpty(t, got)
	first, last := got[0].ModRev, got[len(got)-1].ModRev
	var want []etcdtrace.Change
	for rev := first; rev <= last; rev++ {
		want = append(want, rec.applies[rev]...)
	}
	require.Equal(t, want, got, "watch events == applied changes, no gap, no duplicate")
	require.Greater(t, int64(len(got)), int64(200))
	t.Logf("outcomes %v, %d watch opens, %d responses, %d events", outcomes, len(rec.opens), len(rec.resps), len(got))
}

func TestCompactor(t *testing.T) {
	wd := newWorld(2, func(w *sim.World, eps []sim.HostID) {
		w.MustAddHost(sim.HostSpec{Name: "c0", Role: "client", Boot: BootClient(ClientConfig{Endpoints: eps})})
		w.MustAddHost(sim.HostSpec{Name: "compactor", Role: "client", Boot: BootCompactor(CompactorConfig{Endpoints: eps, Interval: 2 * time.Second})})
		// A watcher that is far behind gets cancelled, re-reads and restarts.
		w.MustAddHost(sim.HostSpec{Name: "watcher", Role: "client", Boot: BootWatcher(WatcherConfig{Endpoints: eps})})
	})
	watcher, _ := wd.w.HostByName("watcher")
	wd.w.After(3*time.Second, "pause", func() { watcher.Pause() })
	wd.w.After(9*time.Second, "resume", func() { watcher.Resume() })
	wd.w.RunFor(12 * time.Second)
	rec := wd.rec
	require.GreaterOrEqual(t, len(rec.compact), 3, "compactions: %v", rec.compact)
	for i := 1; i < len(rec.compact); i++ {
		require.GreaterOrEqual(t, rec.compact[i], rec.compact[i-1])
	}
	canceled := 0
	for _, r := range rec.resps {
		if r.Canceled {
			canceled++
			require.Positive(t, r.CompactRev)
		}
	}
	require.Positive(t, canceled, "the paused watcher's resume revision was compacted")
	require.GreaterOrEqual(t, len(rec.opens), 2)
}

func TestSameSeedSameTrace(t *testing.T) {
	run := func(seed uint64) uint64 {
		wd := newWorld(seed, func(w *sim.World, eps []sim.HostID) {
			for i := 0; i < 2; i++ {
				w.MustAddHost(sim.HostSpec{Name: fmt.Sprintf("c%d", i), Role: "client", Boot: BootClient(ClientConfig{Endpoints: eps})})
			}
			w.MustAddHost(sim.HostSpec{Name: "watcher", Role: "client", Boot: BootWatcher(WatcherConfig{Endpoints: eps})})
		})
		wd.w.Apply(sim.Schedule{
			{At: 2 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-2"}}, For: time.Second},
			{At: 4 * time.Second, Kind: sim.FaultFlaky, Targets: [][]string{{"*"}}, For: 2 * time.Second, Loss: 0.05, Dup: 0.05, Reorder: 0.1},
		})
		wd.w.RunFor(8 * time.Second)
		for _, m := range wd.members {
			etcd.EmitKVHash(wd.w.Host(m))
		}
		return wd.w.Trace().Hash()
	}
	a := run(7)
	require.Equal(t, a, run(7))
	require.NotEqual(t, a, run(8))
}

// TestCompactorIntervalAndUntil: a compactor without an Interval compacts
// every 5 min, kube-apiserver's --etcd-compaction-interval default (the
// first tick only records a revision, so the first compaction comes at the
// second); one with Until stops at that instant: ticks at 2, 4, 6 and 8 s
// with Until 8 s compact at 4 and 6 s only.
func TestCompactorIntervalAndUntil(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      CompactorConfig
		run      time.Duration
		compacts int
	}{
		{"the default interval", CompactorConfig{}, 11 * time.Minute, 1},
		{"until an instant", CompactorConfig{Interval: 2 * time.Second, Until: 8 * time.Second}, 20 * time.Second, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := newWorld(3, func(w *sim.World, eps []sim.HostID) {
				w.MustAddHost(sim.HostSpec{Name: "c0", Role: "client", Boot: BootClient(ClientConfig{Endpoints: eps, Until: tc.run})})
				cfg := tc.cfg
				cfg.Endpoints = eps
				w.MustAddHost(sim.HostSpec{Name: "compactor", Role: "client", Boot: BootCompactor(cfg)})
			})
			wd.w.RunFor(tc.run)
			distinct := map[int64]bool{}
			for _, r := range wd.rec.compact {
				distinct[r] = true
			}
			require.Len(t, distinct, tc.compacts, "compactions: %v", wd.rec.compact)
		})
	}
}
