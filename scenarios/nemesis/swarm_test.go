package nemesis

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// swarmGenerators are the chaos generators a swarm run draws from, by
// scenario.
var swarmGenerators = map[string]Chaos{"etcd": EtcdChaos, "api": APIChaos, "stack": StackChaos}

// testCluster is a cluster of members etcd members, with clients, API
// servers and nodes, for seed.
func testCluster(seed uint64, members int) *Cluster {
	c := &Cluster{World: sim.NewWorld(seed), Clients: []string{"client-1", "client-2", "watcher-1"},
		Servers: []string{"apiserver-1", "apiserver-2", "apiserver-3"}, Nodes: []string{"node-1", "node-2", "node-3"}}
	for i := 1; i <= members; i++ {
		c.Members = append(c.Members, fmt.Sprintf("etcd-%d", i))
	}
	return c
}

const swarmEnd = 200 * time.Second

// TestSwarmKindsPerSeed: the kinds a swarm run switches on are the same
// for a seed every time, never none, and vary across seeds: over 64 seeds
// every kind is on at least once and off at least once, and at least 40
// distinct subsets appear.
func TestSwarmKindsPerSeed(t *testing.T) {
	for _, name := range []string{"etcd", "api", "stack"} {
		g := swarmGenerators[name]
		on, off := map[string]int{}, map[string]int{}
		subsets := map[string]bool{}
		for seed := uint64(1); seed <= 64; seed++ {
			c, again := testCluster(seed, 3), testCluster(seed, 3)
			s := g.Swarm(c, c.World.Rand("scenario/faults"), swarmEnd)
			require.Equal(t, s, g.Swarm(again, again.World.Rand("scenario/faults"), swarmEnd), "%s seed %d", name, seed)
			require.Equal(t, c.SwarmKinds, again.SwarmKinds)
			require.NotEmpty(t, c.SwarmKinds, "%s seed %d", name, seed)
			subsets[strings.Join(c.SwarmKinds, ",")] = true
			for _, k := range g.Kinds() {
				if slices.Contains(c.SwarmKinds, k) {
					on[k]++
				} else {
					off[k]++
				}
			}
		}
		for _, k := range g.Kinds() {
			require.Positive(t, on[k], "%s: %s never on", name, k)
			require.Positive(t, off[k], "%s: %s never off", name, k)
		}
		require.GreaterOrEqual(t, len(subsets), 40, name)
	}
}

// signature is what a fault's kind, targets and trigger event say of it,
// host numbers left out: the kind of chaos that drew it.
func signature(f sim.Fault) string {
	var groups []string
	for _, g := range f.Targets {
		var names []string
		for _, n := range g {
			n = strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return '#'
				}
				return r
			}, n)
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		groups = append(groups, strings.Join(names, ","))
	}
	sig := string(f.Kind) + " " + strings.Join(groups, "|")
	if f.On != nil {
		sig = "on " + f.On.Event + ": " + sig
	}
	return sig
}

// TestSwarmDrawsOnlyChosenKinds: a swarm run's schedule holds faults of
// the kinds it switched on only. Each kind's faults are told apart by
// their signature (fault kind and targets), learnt from schedules drawn
// with that kind alone, and each drawn by one kind only.
func TestSwarmDrawsOnlyChosenKinds(t *testing.T) {
	for _, name := range []string{"etcd", "api", "stack"} {
		g := swarmGenerators[name]
		sigs := map[string][]string{} // signature -> kinds that draw it
		for i, k := range g.Kinds() {
			one := make([]bool, len(g.Kinds()))
			one[i] = true
			for seed := uint64(1); seed <= 32; seed++ {
				c := testCluster(seed, 3)
				s := g.draw(c, c.World.Rand("scenario/faults"), swarmEnd, one)
				require.NotEmpty(t, s, "%s: %s alone draws faults", name, k)
				for _, f := range s {
					if sig := signature(f); !slices.Contains(sigs[sig], k) {
						sigs[sig] = append(sigs[sig], k)
					}
				}
			}
		}
		for sig, kinds := range sigs {
			require.Len(t, kinds, 1, "%s: %q is drawn by more than one kind alone", name, sig)
		}
		for seed := uint64(1); seed <= 64; seed++ {
			c := testCluster(seed, 3)
			s := g.Swarm(c, c.World.Rand("scenario/faults"), swarmEnd)
			for _, f := range s {
				kinds := sigs[signature(f)]
				require.True(t, slices.ContainsFunc(kinds, func(k string) bool { return slices.Contains(c.SwarmKinds, k) }),
					"%s seed %d: %v is a fault of %v, none of them on (%v)", name, seed, f, kinds, c.SwarmKinds)
			}
		}
	}
}

// TestSwarmKeepsFaultCount: over 32 seeds, a run with any one kind on
// alone draws about as many faults as the plain generator (within a
// third on average), and so does a swarm run.
func TestSwarmKeepsFaultCount(t *testing.T) {
	for _, name := range []string{"etcd", "api", "stack"} {
		g := swarmGenerators[name]
		count := func(draw func(c *Cluster) sim.Schedule) int {
			n := 0
			for seed := uint64(1); seed <= 32; seed++ {
				n += len(draw(testCluster(seed, 3)))
			}
			return n
		}
		plain := count(func(c *Cluster) sim.Schedule { return g.Schedule(c, c.World.Rand("scenario/faults"), swarmEnd) })
		swarm := count(func(c *Cluster) sim.Schedule { return g.Swarm(c, c.World.Rand("scenario/faults"), swarmEnd) })
		require.InEpsilon(t, plain, swarm, 0.34, "%s: %d faults plain, %d swarm", name, plain, swarm)
		for i, k := range g.Kinds() {
			one := make([]bool, len(g.Kinds()))
			one[i] = true
			alone := count(func(c *Cluster) sim.Schedule { return g.draw(c, c.World.Rand("scenario/faults"), swarmEnd, one) })
			require.InEpsilon(t, plain, alone, 0.34, "%s: %d faults plain, %d of %s alone", name, plain, alone, k)
		}
	}
}

// TestMixedSwarm: mixed:swarm=true switches crash-restart, partitions and
// a flaky network on per seed, records them and draws only those;
// swarm=false is the plain profile and prints as it.
func TestMixedSwarm(t *testing.T) {
	plain, err := ParseProfile("mixed:swarm=false")
	require.NoError(t, err)
	require.Equal(t, "mixed", plain.Name)
	require.NotContains(t, plain.String(), "swarm")
	p, err := ParseProfile("mixed:swarm=true")
	require.NoError(t, err)
	require.Contains(t, p.String(), "swarm=true")
	_, err = ParseProfile("mixed:swarm=maybe")
	require.ErrorContains(t, err, `swarm="maybe": want true or false`)
	_, err = ParseProfile("partitions:swarm=true")
	require.ErrorContains(t, err, `bad parameter "swarm=true"`)
	subsets := map[string]bool{}
	of := map[sim.FaultKind]string{sim.FaultCrash: "crash-restart", sim.FaultPartition: "partitions", sim.FaultFlaky: "flaky-network"}
	for seed := uint64(1); seed <= 64; seed++ {
		c := testCluster(seed, 3)
		s := p.Schedule(c, c.World.Rand("scenario/faults"), swarmEnd)
		require.NotEmpty(t, c.SwarmKinds)
		subsets[strings.Join(c.SwarmKinds, ",")] = true
		for _, f := range s {
			require.Contains(t, c.SwarmKinds, of[f.Kind], "seed %d: %v", seed, f)
		}
		c = testCluster(seed, 3)
		plain.Schedule(c, c.World.Rand("scenario/faults"), swarmEnd)
		require.Nil(t, c.SwarmKinds, "a plain profile records no swarm")
	}
	require.Len(t, subsets, 7, "every non-empty subset of three appears in 64 seeds")
}
