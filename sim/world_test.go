package sim_test

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// note is a node event of the toy chatter process.
type note struct {
	What string
	N    int
}

func (n note) TraceKind() string { return "chatter." + n.What }
func (n note) AppendText(b []byte) []byte {
	return strconv.AppendInt(append(b, "n="...), int64(n.N), 10)
}

// chatter is a toy process for kernel tests: on a randomized timer it
// messages a random peer, logs to disk with an fsync, and makes an RPC that
// the peer answers after a random delay. Its state is rebuilt from its disk.
type chatter struct {
	h     *sim.Host
	peers []sim.HostID
	rng   *sim.Stream
	rpc   *sim.RPC
	count int
	tick  *sim.Timer
}

func bootChatter(peers []sim.HostID) func(h *sim.Host) {
	return func(h *sim.Host) {
		c := &chatter{h: h, peers: peers, rng: h.Rand("chatter")}
		c.count = len(h.Disk().Records("log"))
		c.rpc = sim.NewRPC(h, "reply")
		h.Handle("chat", func(m *sim.Message) { h.Emit(note{"got", m.Payload.(int)}) })
		sim.Serve(h, "echo", func(q *sim.Request) {
			h.After(time.Duration(c.rng.IntN(20))*time.Millisecond, "echo", func() { q.Reply(q.Body) })
		})
		c.tick = h.NewTimer("chatter", c.onTick)
		c.tick.Reset(time.Duration(1+c.rng.IntN(50)) * time.Millisecond)
		h.OnProcessRestart("chatter", func() {
			// A new process reads its count back and starts ticking again.
			c.count = len(h.Disk().Records("log"))
			c.tick.Reset(time.Duration(1+c.rng.IntN(50)) * time.Millisecond)
		})
	}
}

func (c *chatter) onTick() {
	c.count++
	to := c.peers[c.rng.IntN(len(c.peers))]
	c.h.Send(to, "chat", c.count)
	c.h.Disk().Append("log", []byte(strconv.Itoa(c.count)))
	n := c.count
	c.h.Disk().Sync(func() { c.h.Emit(note{"synced", n}) })
	c.rpc.Call(to, "echo", n, 15*time.Millisecond, func(resp any, err error) {
		if err != nil {
			c.h.Emit(note{"timeout", n})
			return
		}
		c.h.Emit(note{"echoed", resp.(int)})
	})
	c.tick.Reset(time.Duration(1+c.rng.IntN(50)) * time.Millisecond)
}

// randomSchedule draws a fault schedule over hosts from the seed.
func randomSchedule(rng *sim.Stream, hosts []string, horizon time.Duration, n int) sim.Schedule {
	var s sim.Schedule
	pick := func() []string {
		k := 1 + rng.IntN(len(hosts)-1)
		perm := rng.Perm(len(hosts))
		var out []string
		for _, i := range perm[:k] {
			out = append(out, hosts[i])
		}
		return out
	}
	for i := 0; i < n; i++ {
		f := sim.Fault{
			At:   time.Duration(rng.Int64N(int64(horizon))),
			Kind: sim.FaultKinds[rng.IntN(len(sim.FaultKinds))],
			For:  time.Duration(rng.Int64N(int64(horizon / 4))),
		}
		switch f.Kind {
		case sim.FaultPartition:
			perm := rng.Perm(len(hosts))
			cut := 1 + rng.IntN(len(hosts)-1)
			var a, b []string
			for j, p := range perm {
				if j < cut {
					a = append(a, hosts[p])
				} else {
					b = append(b, hosts[p])
				}
			}
			f.Targets = [][]string{a, b}
		case sim.FaultOneWay:
			perm := rng.Perm(len(hosts))
			cut := 1 + rng.IntN(len(hosts)-1)
			f.Targets = [][]string{{hosts[perm[0]]}, {hosts[perm[cut]]}}
		case sim.FaultHeal:
			f.For = 0
		case sim.FaultRestartProcess:
			f.Targets, f.For, f.Process = [][]string{pick()}, 0, "chatter"
		case sim.FaultClockDrift:
			f.Targets, f.Rate = [][]string{pick()}, 0.5+rng.Float64()
		case sim.FaultClockJump:
			f.Targets, f.For, f.By = [][]string{pick()}, 0, time.Duration(rng.Int64N(int64(time.Second)))-500*time.Millisecond
			if f.By == 0 {
				f.By = time.Millisecond
			}
		case sim.FaultSlowDisk:
			f.Targets, f.Fsync = [][]string{pick()}, time.Duration(1+rng.IntN(50))*time.Millisecond
		case sim.FaultFlaky:
			f.Targets = [][]string{pick()}
			f.Loss, f.Dup, f.Reorder = rng.Float64()/2, rng.Float64()/4, rng.Float64()/4
			f.Delay = time.Duration(rng.IntN(5)) * time.Millisecond
		default:
			f.Targets = [][]string{pick()}
		}
		s = append(s, f)
	}
	return s
}

// chatterWorld builds a random world of chatter hosts with random faults.
func chatterWorld(seed uint64) *sim.World {
	w := sim.NewWorld(seed)
	rng := w.Rand("test/topology")
	n := 2 + rng.IntN(5)
	var peers []sim.HostID
	var names []string
	for i := 0; i < n; i++ {
		peers = append(peers, sim.HostID(i))
		names = append(names, fmt.Sprintf("h%d", i))
	}
	for _, name := range names {
		w.MustAddHost(sim.HostSpec{Name: name, Role: "chatter", Boot: bootChatter(peers), Processes: []string{"chatter"}})
	}
	w.Network().SetDefault(sim.LinkSpec{Latency: time.Millisecond, Jitter: 2 * time.Millisecond, Loss: 0.01, Dup: 0.01, Reorder: 0.05})
	sched := randomSchedule(w.Rand("test/faults"), names, 2*time.Second, 8)
	w.Apply(sched)
	return w
}

func runChatter(seed uint64) (uint64, uint64) {
	w := chatterWorld(seed)
	w.RunFor(2 * time.Second)
	return w.Trace().Hash(), w.Trace().Len()
}

// TestSameSeedSameHash: 200 random worlds with random faults each replay to
// the same trace hash.
func TestSameSeedSameHash(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		h1, n1 := runChatter(seed)
		h2, n2 := runChatter(seed)
		require.Equal(t, h1, h2, "seed %d", seed)
		require.Equal(t, n1, n2, "seed %d", seed)
		require.Greater(t, n1, uint64(100), "seed %d produced a trivial trace", seed)
	}
}

// TestHashIndependentOfScheduling: the hash does not depend on GOMAXPROCS or
// on other worlds running at the same time.
func TestHashIndependentOfScheduling(t *testing.T) {
	const seeds = 24
	want := make([]uint64, seeds)
	for i := range want {
		want[i], _ = runChatter(uint64(1000 + i))
	}
	for _, procs := range []int{1, 8} {
		prev := runtime.GOMAXPROCS(procs)
		got := make([]uint64, seeds)
		var wg sync.WaitGroup
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], _ = runChatter(uint64(1000 + i))
			}()
		}
		wg.Wait()
		runtime.GOMAXPROCS(prev)
		require.Equal(t, want, got, "GOMAXPROCS=%d with concurrent worlds", procs)
	}
}

// TestDifferentSeedsDifferentHashes: the fingerprint tells seeds apart.
func TestDifferentSeedsDifferentHashes(t *testing.T) {
	seen := map[uint64]uint64{}
	for seed := uint64(1); seed <= 200; seed++ {
		h, _ := runChatter(seed)
		if other, dup := seen[h]; dup {
			t.Fatalf("seeds %d and %d share hash %x", other, seed, h)
		}
		seen[h] = seed
	}
}

func TestTimeText(t *testing.T) {
	assert.Equal(t, "12.000345s", sim.Time(12_000_345_678).String())
	assert.Equal(t, "0.000000s", sim.Time(0).String())
	assert.Equal(t, "-1.500000s", sim.Time(-1_500_000_000).String())
}

func TestStreamsAreIndependent(t *testing.T) {
	w1, w2 := sim.NewWorld(7), sim.NewWorld(7)
	a1 := w1.Rand("a").Uint64()
	w2.Rand("b").Uint64() // drawing from another stream first changes nothing
	w2.Rand("b").Uint64()
	assert.Equal(t, a1, w2.Rand("a").Uint64())
	assert.NotEqual(t, sim.NewStream(7, "a").Uint64(), sim.NewStream(7, "b").Uint64())
	assert.Same(t, w1.Rand("a"), w1.Rand("a"))
}
