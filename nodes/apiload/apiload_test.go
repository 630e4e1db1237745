package apiload

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// world is a test world: 3 etcd members, API servers that alone may reach
// etcd, and the workload hosts added by the test.
type world struct {
	w       *sim.World
	servers []sim.HostID
	calls   map[string]*apitrace.Call // client/op -> call
	returns []*apitrace.Return
	codes   map[string]map[int]int // verb -> code -> count
	admits  []apitrace.Admit
	stores  []apitrace.Store
	states  []apitrace.ServerState
	relists []apitrace.Relist
}

// newWorld builds the etcd cluster and n API servers (mod adjusts their
// config).
func newWorld(seed uint64, n int, mod func(*apiserver.Config)) *world {
	tw := &world{w: sim.NewWorld(seed), calls: map[string]*apitrace.Call{}, codes: map[string]map[int]int{}}
	var peers []etcd.Peer
	var eps []sim.HostID
	for i := 1; i <= 3; i++ {
		peers = append(peers, etcd.Peer{ID: uint64(i), Host: sim.HostID(i - 1), Name: "etcd-" + strconv.Itoa(i)})
		eps = append(eps, sim.HostID(i-1))
	}
	for _, p := range peers {
		tw.w.MustAddHost(sim.HostSpec{Name: p.Name, Role: "etcd", Boot: etcd.Boot(etcd.Config{ID: p.ID, Peers: peers})})
	}
	for i := 1; i <= n; i++ {
		cfg := apiserver.Config{Etcd: eps}
		if mod != nil {
			mod(&cfg)
		}
		h := tw.w.MustAddHost(sim.HostSpec{Name: "apiserver-" + strconv.Itoa(i), Role: "apiserver", Boot: apiserver.Boot(cfg)})
		tw.servers = append(tw.servers, h.ID())
	}
	tw.w.Network().AllowOnly(etcd.ClientPort, "apiserver")
	tw.w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *apitrace.Call:
			c := *d
			tw.calls[d.Client+"/"+strconv.FormatUint(d.Op, 10)] = &c
		case *apitrace.Return:
			r := *d
			tw.returns = append(tw.returns, &r)
			verb := tw.calls[d.Client+"/"+strconv.FormatUint(d.Op, 10)].Verb
			if tw.codes[verb] == nil {
				tw.codes[verb] = map[int]int{}
			}
			tw.codes[verb][d.Code]++
		case *apitrace.Admit:
			tw.admits = append(tw.admits, *d)
		case *apitrace.Store:
			tw.stores = append(tw.stores, *d)
		case *apitrace.ServerState:
			tw.states = append(tw.states, *d)
		case *apitrace.Relist:
			tw.relists = append(tw.relists, *d)
		}
		if e.Kind == sim.KindRefuse {
			panic("a host other than an API server reached etcd: " + e.Port)
		}
	})
	return tw
}

func (tw *world) add(name string, boot func(*sim.Host)) *sim.Host {
	return tw.w.MustAddHost(sim.HostSpec{Name: name, Role: "api-client", Boot: boot})
}

// TestCounterAccountsForEveryIncrement: writers racing on one counter get
// conflicts and retry; without faults every increment is acknowledged and
// the counter ends at their number.
func TestCounterAccountsForEveryIncrement(t *testing.T) {
	tw := newWorld(1, 2, nil)
	var hosts []*sim.Host
	for i := 1; i <= 5; i++ {
		hosts = append(hosts, tw.add("writer-"+strconv.Itoa(i), BootCounter(CounterConfig{WorkloadConfig: WorkloadConfig{Servers: tw.servers, Think: 20 * time.Millisecond, Until: 20 * time.Second}})))
	}
	tw.add("state", BootStateReporter(StateReporterConfig{Servers: tw.servers, At: 25 * time.Second}))
	tw.w.RunFor(26 * time.Second)
	var total CounterStats
	for _, h := range hosts {
		s := h.Exposed(CounterExposeName).(*CounterStats)
		total.Acked += s.Acked
		total.Unknown += s.Unknown
		total.Failed += s.Failed
	}
	t.Logf("%+v, update codes %v", total, tw.codes["update"])
	require.Greater(t, total.Acked, 200)
	require.Zero(t, total.Unknown)
	require.Greater(t, tw.codes["update"][409], 10, "writers race")
	require.Len(t, tw.states, 1)
	require.Equal(t, []apitrace.Item{{Key: "default/counter", RV: tw.states[0].Items[0].RV, Value: strconv.Itoa(total.Acked)}}, tw.states[0].Items)
	for _, c := range tw.calls {
		if c.Verb == "update" {
			require.NotEmpty(t, c.Precondition)
			n, err := strconv.Atoi(c.Value)
			require.NoError(t, err)
			require.Positive(t, n)
		}
	}
}

// TestCounterLosesUpdatesUnderLastWriteWins: with the API server ignoring
// resourceVersion, racing increments overwrite each other.
func TestCounterLosesUpdatesUnderLastWriteWins(t *testing.T) {
	tw := newWorld(2, 2, func(c *apiserver.Config) { c.Ablations = ablation.Of(ablation.LastWriteWins) })
	var hosts []*sim.Host
	for i := 1; i <= 5; i++ {
		hosts = append(hosts, tw.add("writer-"+strconv.Itoa(i), BootCounter(CounterConfig{WorkloadConfig: WorkloadConfig{Servers: tw.servers, Think: 20 * time.Millisecond, Until: 10 * time.Second}})))
	}
	tw.add("state", BootStateReporter(StateReporterConfig{Servers: tw.servers, At: 15 * time.Second}))
	tw.w.RunFor(16 * time.Second)
	acked := 0
	for _, h := range hosts {
		acked += h.Exposed(CounterExposeName).(*CounterStats).Acked
	}
	require.Len(t, tw.states, 1)
	final, err := strconv.Atoi(tw.states[0].Items[0].Value)
	require.NoError(t, err)
	require.Less(t, final, acked, "updates were lost")
}

// TestCRUDWorkload: the CRUD clients use every verb, with conditional
// writes that sometimes conflict, and every call returns.
func TestCRUDWorkload(t *testing.T) {
	tw := newWorld(3, 3, nil)
	for i := 1; i <= 4; i++ {
		tw.add("crud-"+strconv.Itoa(i), BootCRUD(CRUDConfig{WorkloadConfig: WorkloadConfig{Servers: tw.servers, Think: 30 * time.Millisecond, Until: 20 * time.Second}, Keys: 3}))
	}
	tw.w.RunFor(25 * time.Second)
	t.Logf("codes %v", tw.codes)
	require.Len(t, tw.returns, len(tw.calls))
	for _, verb := range []string{"get", "create", "update", "delete"} {
		require.Positive(t, tw.codes[verb][200]+tw.codes[verb][201], verb)
	}
	require.Positive(t, tw.codes["update"][409], "stale updates conflict")
	require.Positive(t, tw.codes["get"][404])
	values := map[string]bool{}
	for _, k := range sortedKeys(tw.calls) {
		c := tw.calls[k]
		if c.Verb == "get" {
			require.Empty(t, c.RV, "gets are quorum reads")
		}
		if c.Value != "" {
			require.False(t, values[c.Value], "value %s written twice", c.Value)
			values[c.Value] = true
		}
		if c.Verb == "update" {
			require.NotEmpty(t, c.Precondition)
		}
	}
}

// TestInformersMatchServerState: informers under CRUD load and replica
// crashes end with the stores the server lists.
func TestInformersMatchServerState(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		tw := newWorld(seed, 3, nil)
		for i := 1; i <= 3; i++ {
			tw.add("crud-"+strconv.Itoa(i), BootCRUD(CRUDConfig{WorkloadConfig: WorkloadConfig{Servers: tw.servers, Until: 40 * time.Second}}))
		}
		tw.add("counter", BootCounter(CounterConfig{WorkloadConfig: WorkloadConfig{Servers: tw.servers, Until: 40 * time.Second}}))
		for i := 1; i <= 2; i++ {
			tw.add("informer-"+strconv.Itoa(i), BootInformers(InformerConfig{Servers: tw.servers, Resources: []string{"leases", "pods"},
				EmitAt: 59 * time.Second}))
		}
		tw.add("state", BootStateReporter(StateReporterConfig{Servers: tw.servers, Resources: []string{"leases", "pods"}, At: 59 * time.Second}))
		tw.w.Apply(sim.Schedule{
			{At: 10 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"apiserver-1"}}, For: 5 * time.Second},
			{At: 20 * time.Second, Kind: sim.FaultIsolate, Targets: [][]string{{"apiserver-2"}}, For: 5 * time.Second},
		})
		tw.w.RunFor(60 * time.Second)
		require.Len(t, tw.stores, 4)
		require.Len(t, tw.states, 2)
		byRes := map[string]apitrace.ServerState{}
		for _, s := range tw.states {
			byRes[s.Resource] = s
		}
		require.NotEmpty(t, byRes["leases"].Items)
		for _, st := range tw.stores {
			require.Equal(t, byRes[st.Resource].Items, st.Items, "seed %d: %s", seed, st.Informer)
		}
	}
}

// TestRogueIsRefused: every forbidden write is refused; with authorization
// skipped, they are admitted.
func TestRogueIsRefused(t *testing.T) {
	for _, skip := range []bool{false, true} {
		tw := newWorld(4, 2, func(c *apiserver.Config) { c.Ablations = ablation.When(skip, ablation.SkipAuthz) })
		h := tw.add("rogue", BootRogue(RogueConfig{Servers: tw.servers, Interval: 500 * time.Millisecond, Until: 30 * time.Second}))
		tw.w.RunFor(31 * time.Second)
		st := h.Exposed(RogueExposeName).(*RogueStats)
		t.Logf("skip=%v %+v", skip, *st)
		require.Greater(t, st.Attempts, 20)
		var bad int
		for _, a := range tw.admits {
			if a.User != DefaultUser {
				bad++
			}
		}
		if !skip {
			require.Equal(t, st.Attempts, st.Forbidden)
			require.Zero(t, bad, "admitted: %v", tw.admits)
		} else {
			require.Zero(t, st.Forbidden)
			require.Positive(t, st.Accepted)
			require.Greater(t, bad, 10)
		}
	}
}

// sortedKeys is sim.SortedKeys.
func sortedKeys[V any](m map[string]V) []string { return sim.SortedKeys(m) }
