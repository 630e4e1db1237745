package kvload

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// chaosSchedule draws a random fault schedule over [0, until).
func chaosSchedule(seed uint64, until time.Duration) sim.Schedule {
	r := rand.New(rand.NewPCG(seed, 99))
	members := []string{"etcd-1", "etcd-2", "etcd-3"}
	var s sim.Schedule
	for at := time.Second; at < until; at += time.Duration(500+r.IntN(2000)) * time.Millisecond {
		m := members[r.IntN(3)]
		d := time.Duration(300+r.IntN(3000)) * time.Millisecond
		f := sim.Fault{At: at, For: d, Targets: [][]string{{m}}}
		switch r.IntN(6) {
		case 0:
			f.Kind = sim.FaultCrash
		case 1:
			f.Kind = sim.FaultTorn
		case 2:
			f.Kind = sim.FaultIsolate
		case 3:
			f.Kind = sim.FaultPause
		case 4:
			f.Kind, f.Targets = sim.FaultFlaky, [][]string{{"*"}}
			f.Loss, f.Dup, f.Reorder, f.Delay = 0.1, 0.1, 0.2, 2*time.Millisecond
		default:
			f.Kind = sim.FaultPartition
			f.Targets = [][]string{{m}, {}}
			for _, o := range members {
				if o != m {
					f.Targets[1] = append(f.Targets[1], o)
				}
			}
		}
		s = append(s, f)
	}
	return s
}

// TestChaosSafety runs the workload under random faults on a few seeds and
// checks what a member must guarantee whatever happens: every member applies
// the same entry with the same outcome at each index, the members converge
// once the faults end, and the watcher sees every change once, in order.
func TestChaosSafety(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			wd := newWorld(seed, func(w *sim.World, eps []sim.HostID) {
				for i := 0; i < 3; i++ {
					w.MustAddHost(sim.HostSpec{Name: fmt.Sprintf("c%d", i), Role: "client", Boot: BootClient(ClientConfig{Endpoints: eps})})
				}
				w.MustAddHost(sim.HostSpec{Name: "watcher", Role: "client", Boot: BootWatcher(WatcherConfig{Endpoints: eps})})
				w.MustAddHost(sim.HostSpec{Name: "compactor", Role: "client", Boot: BootCompactor(CompactorConfig{Endpoints: eps, Interval: 4 * time.Second})})
			})
			type applied struct {
				hash uint64
				text string
			}
			byIndex := map[uint64]applied{}
			var hashes []etcdtrace.KVHash
			wd.w.Subscribe(func(e *sim.Event) {
				switch d := e.Data.(type) {
				case *etcdtrace.Apply:
					cp := *d
					cp.Member = ""
					a := applied{hash: d.EntryHash, text: string(cp.AppendText(nil))}
					if prev, ok := byIndex[d.Index]; ok {
						require.Equal(t, prev, a, "index %d applied differently on %s", d.Index, d.Member)
					}
					byIndex[d.Index] = a
				case *etcdtrace.KVHash:
					hashes = append(hashes, *d)
				}
			})
			wd.w.Apply(chaosSchedule(seed, 30*time.Second))
			wd.w.RunFor(34 * time.Second)
			wd.w.Inject(sim.Fault{Kind: sim.FaultHeal})
			for _, m := range wd.members {
				if h := wd.w.Host(m); !h.Up() {
					h.Restart()
				} else if h.Paused() {
					h.Resume()
				}
			}
			wd.w.RunFor(10 * time.Second)
			for _, name := range []string{"c0", "c1", "c2", "watcher", "compactor"} {
				h, _ := wd.w.HostByName(name)
				h.Crash() // quiesce, so the members can agree
			}
			wd.w.RunFor(2 * time.Second)
			for _, m := range wd.members {
				etcd.EmitKVHash(wd.w.Host(m))
			}
			require.Len(t, hashes, 3)
			for _, h := range hashes[1:] {
				require.Equal(t, hashes[0].Hash, h.Hash, "members diverged: %+v", hashes)
			}

			// Watch: within each run of responses between cancellations,
			// events are exactly the applied changes.
			var seg []etcdtrace.Change
			check := func() {
				if len(seg) == 0 {
					return
				}
				var want []etcdtrace.Change
				for rev := seg[0].ModRev; rev <= seg[len(seg)-1].ModRev; rev++ {
					want = append(want, wd.rec.applies[rev]...)
				}
				require.Equal(t, want, seg)
				seg = nil
			}
			for _, r := range wd.rec.resps {
				if r.Canceled {
					check()
				}
				seg = append(seg, r.Events...)
			}
			check()
			outcomes := map[etcdtrace.Outcome]int{}
			for _, r := range wd.rec.returns {
				outcomes[r.Outcome]++
			}
			t.Logf("outcomes %v, %d opens, %d compactions, %d indexes", outcomes, len(wd.rec.opens), len(wd.rec.compact), len(byIndex))
		})
	}
}
