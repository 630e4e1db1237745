package kubeproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

const (
	services = model.ResourceServicesName
	slicesR  = model.ResourceEndpointSlicesName
)

// TestProgramsFromInformers: the table starts empty at boot; once both
// informers listed, the rules route web to its ready pod; watched changes
// move the rules to the serving-terminating fallback, then to nothing.
func TestProgramsFromInformers(t *testing.T) {
	e := newEnv(t, Config{}, webWorld)
	e.run(2 * time.Second)
	require.Equal(t, "kubeproxy.flush node=node-1 reason=boot", e.events[0].text)
	require.Equal(t, []string{"default/a/ready"}, func() []string { p, _ := e.routed(); return p }())
	require.Len(t, e.events, 2, "one Rules event for the one Service port")
	require.Equal(t, 1, e.proxy().Generation())

	e.api.put(slicesR, slice("web-1", "web", ep("a", "10.1.0.1", "node-1", "st"), ep("b", "10.1.0.2", "node-1", "-")), true)
	e.run(2 * time.Second)
	e.requireRouted("default/a/terminating")

	e.api.put(slicesR, slice("web-1", "web", ep("a", "10.1.0.1", "node-1", "t"), ep("b", "10.1.0.2", "node-1", "-")), true)
	e.run(2 * time.Second)
	e.requireRouted()
	require.Len(t, e.events, 4, "one Rules event per change of web's backends")
}

// TestMinSyncPeriod: changes 100 ms apart are synced twice at once (the
// burst) and then coalesced into one sync a min sync period after the
// last.
func TestMinSyncPeriod(t *testing.T) {
	e := newEnv(t, Config{}, webWorld)
	e.run(10 * time.Second)
	start := e.w.Now()
	pods := []model.Endpoint{ep("a", "10.1.0.1", "node-1", "rs")}
	for i := 2; i <= 9; i++ {
		pods = append(pods, ep("p"+string(rune('0'+i)), "10.1.0."+string(rune('0'+i)), "node-1", "rs"))
		e.api.put(slicesR, slice("web-1", "web", pods...), true)
		e.run(100 * time.Millisecond)
	}
	e.run(3 * time.Second)
	evs := e.since(start)
	require.Len(t, evs, 3, "8 changes, 3 syncs")
	require.Less(t, evs[1].at.Sub(start), 200*time.Millisecond, "the burst: two syncs at once")
	require.GreaterOrEqual(t, evs[2].at.Sub(evs[1].at), DefaultMinSyncPeriod, "then one min sync period")
	require.Less(t, evs[2].at.Sub(evs[1].at), DefaultMinSyncPeriod+50*time.Millisecond)
	got, _ := e.routed()
	require.Len(t, got, 9, "the last sync programs every change")
}

// TestPeriodicSync: a change that requested no sync is programmed by the
// periodic sync, MaxSyncInterval after the last one.
func TestPeriodicSync(t *testing.T) {
	e := newEnv(t, Config{MaxSyncInterval: 30 * time.Second}, webWorld)
	e.run(2 * time.Second)
	q := e.proxy().procs.Current()
	last := q.runner.LastRun()
	// Straight into the cache, as if its event had been lost.
	q.cache.OnSlice(nil, slice("web-1", "web", ep("b", "10.1.0.2", "node-1", "rs")))
	e.run(20 * time.Second)
	e.requireRouted("default/a/ready")
	e.run(20 * time.Second)
	e.requireRouted("default/b/ready")
	evs := e.since(last)
	require.Len(t, evs, 1)
	require.Equal(t, last.Add(30*time.Second), evs[0].at)
}

// TestKeepsRulesThroughOutage: with the API server down, kube-proxy keeps
// its rules, also across a restart of its process (which cannot list);
// when the server is back, the informers relist and the rules catch up
// with what changed meanwhile.
func TestKeepsRulesThroughOutage(t *testing.T) {
	e := newEnv(t, Config{}, webWorld)
	e.run(2 * time.Second)
	start := e.w.Now()
	e.inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"api"}}})
	e.run(3 * time.Minute)
	e.requireRouted("default/a/ready")
	e.inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{"node-1"}}, Process: Process})
	e.run(2 * time.Minute)
	require.Equal(t, 2, e.proxy().Generation())
	e.requireRouted("default/a/ready")
	require.Empty(t, e.since(start), "nothing flushed, nothing programmed")

	e.api.put(slicesR, slice("web-1", "web", ep("b", "10.1.0.2", "node-1", "rs")), false)
	e.inject(sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{"api"}}})
	e.run(2 * time.Minute)
	e.requireRouted("default/b/ready")
}

// TestRestartRelists: a restarted process starts with empty caches and
// relists: it programs what only a list shows, while the table it found
// kept routing until its first sync.
func TestRestartRelists(t *testing.T) {
	e := newEnv(t, Config{}, webWorld)
	e.run(2 * time.Second)
	e.api.put(slicesR, slice("web-1", "web", ep("b", "10.1.0.2", "node-1", "rs")), false) // no watch event
	e.run(10 * time.Second)
	e.requireRouted("default/a/ready")

	e.inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{"node-1"}}, Process: Process})
	q := e.proxy().procs.Current()
	require.Equal(t, 2, e.proxy().Generation())
	require.Empty(t, q.cache.Routes(), "the new process's caches start empty")
	e.requireRouted("default/a/ready")
	e.run(2 * time.Second)
	e.requireRouted("default/b/ready")
}

// TestHostCrashEmptiesTable: a host crash loses the table; it starts empty
// at the next boot (traced) and is programmed again.
func TestHostCrashEmptiesTable(t *testing.T) {
	e := newEnv(t, Config{}, webWorld)
	e.run(2 * time.Second)
	start := e.w.Now()
	e.inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"node-1"}}})
	e.run(time.Second)
	e.inject(sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{"node-1"}}})
	_, ok := e.routed()
	require.False(t, ok, "a new boot, an empty table")
	e.run(2 * time.Second)
	e.requireRouted("default/a/ready")
	evs := e.since(start)
	require.Len(t, evs, 2)
	require.Equal(t, "kubeproxy.flush node=node-1 reason=boot", evs[0].text)
}

// TestFlushOnDisconnectAblation: with the ablation, kube-proxy drops every
// rule once the API server stops answering, and programs them again when it
// answers.
func TestFlushOnDisconnectAblation(t *testing.T) {
	e := newEnv(t, Config{Ablations: ablation.Of(ablation.ProxyFlushOnDisconnect)}, webWorld)
	e.run(15 * time.Second)
	e.requireRouted("default/a/ready")
	start := e.w.Now()
	e.inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"api"}}})
	e.run(25 * time.Second)
	_, ok := e.routed()
	require.False(t, ok, "the rules are gone")
	evs := e.since(start)
	require.Len(t, evs, 1)
	require.Equal(t, "kubeproxy.flush node=node-1 reason=disconnected", evs[0].text)
	require.LessOrEqual(t, evs[0].at.Sub(start), 2*DefaultDisconnectTimeout)

	e.inject(sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{"api"}}})
	e.run(30 * time.Second)
	e.requireRouted("default/a/ready")
}

// TestIgnoresReadinessAblation: with the ablation, the process routes to an
// endpoint that is neither ready nor serving.
func TestIgnoresReadinessAblation(t *testing.T) {
	seed := func(api *fakeAPI) {
		api.put(services, service("web", "10.96.0.10"), false)
		api.put(slicesR, slice("web-1", "web", ep("a", "10.1.0.1", "node-1", "rs"), ep("b", "10.1.0.2", "node-1", "-")), false)
	}
	e := newEnv(t, Config{}, seed)
	e.run(2 * time.Second)
	e.requireRouted("default/a/ready")
	e = newEnv(t, Config{Ablations: ablation.Of(ablation.ProxyIgnoresReadiness)}, seed)
	e.run(2 * time.Second)
	e.requireRouted("default/a/ready", "default/b/not-ready")
}

// TestBeside: a node's host boots the other component first, then
// kube-proxy, and a restart-process fault restarts kube-proxy alone.
func TestBeside(t *testing.T) {
	w := sim.NewWorld(1)
	boots := 0
	other := func(h *sim.Host) {
		boots++
		h.OnProcessRestart("kubelet", func() { t.Fatal("the kubelet was restarted") })
	}
	h := w.MustAddHost(sim.HostSpec{Name: "node-1", Boot: Beside(other, Config{}), Processes: []string{"kubelet", Process}})
	w.RunFor(time.Second)
	require.Equal(t, 1, boots)
	require.NotNil(t, Of(h))
	require.Equal(t, "node-1", Of(h).Node())
	w.Inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{"node-1"}}, Process: Process})
	require.Equal(t, 2, Of(h).Generation())
	require.Equal(t, 1, boots)
}
