package apptraffic

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/model"
	apiclient "github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/nodes/kubeproxy"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apptrace"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

const (
	svc = "default/web"
	vip = "10.96.0.10"
)

// world is a small cluster: etcd, an API server, kubelets node-1 and
// node-2 (node-1 runs the in-cluster clients the test asks for) and an
// outside host "outside" (its clients enter through a node). Each node
// routes by a kubeproxy.Table the test programs.
type world struct {
	*apitest.Cluster
	t      *testing.T
	tables map[string]*kubeproxy.Table
	events []*apptrace.Request
	at     []sim.Time
}

func newWorld(t *testing.T, seed uint64, inside, outside []Config) *world {
	return newWorldWith(t, seed, ablation.Set{}, inside, outside)
}

// newWorldWith is newWorld with the kubelets' ablations abl.
func newWorldWith(t *testing.T, seed uint64, abl ablation.Set, inside, outside []Config) *world {
	w := &world{Cluster: apitest.New(seed, 1, 1, nil), t: t, tables: map[string]*kubeproxy.Table{}}
	rules := func(h *sim.Host) Rules {
		if tb := w.tables[h.Name()]; tb != nil {
			return tb
		}
		return nil
	}
	for i, name := range []string{"node-1", "node-2"} {
		w.tables[name] = kubeproxy.NewTable(name)
		boot := kubelet.Boot(kubelet.Config{Node: name, Servers: w.Servers, Ablations: abl})
		var clients []Config
		if i == 0 {
			clients = inside
		}
		w.W.MustAddHost(sim.HostSpec{Name: name, Role: apitest.RoleClient, Processes: []string{kubelet.Process},
			Boot: Beside(boot, withRules(clients, rules)...)})
	}
	w.AddHost("outside", Boot(withRules(outside, rules)...))
	w.W.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*apptrace.Request); ok {
			cp := *d
			w.events, w.at = append(w.events, &cp), append(w.at, e.At)
		}
	})
	w.Settle()
	return w
}

// withRules returns cfgs routing by rules.
func withRules(cfgs []Config, rules func(*sim.Host) Rules) []Config {
	out := make([]Config, len(cfgs))
	for i, c := range cfgs {
		c.RulesOf = rules
		out[i] = c
	}
	return out
}

// pod creates a pod on node and returns its backend once it runs.
func (w *world) pod(name, node string, ann map[string]string, mods ...func(*model.Pod)) kubeproxy.Backend {
	w.t.Helper()
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", Annotations: ann},
		Spec: model.PodSpec{NodeName: node, Containers: []model.Container{{Name: "app", Image: "app:1"}}}}
	for _, m := range mods {
		m(p)
	}
	_, err := w.Create(p)
	require.NoError(w.t, err)
	for end := w.W.Now().Add(30 * time.Second); ; w.Run(100 * time.Millisecond) {
		require.Less(w.t, w.W.Now(), end, "pod %s never ran", name)
		obj, err := w.Get(model.ResourcePodsName, "default", name)
		require.NoError(w.t, err)
		if got := obj.(*model.Pod); got.Status.Phase == model.PodRunning && got.Status.PodIP != "" {
			return kubeproxy.Backend{Pod: "default/" + name, IP: got.Status.PodIP, Port: 8080, Node: node, State: proxytrace.StateReady}
		}
	}
}

// route programs every node's table to send the Service's port 80 to
// backends.
func (w *world) route(backends ...kubeproxy.Backend) {
	for _, name := range sim.SortedKeys(w.tables) {
		r := &kubeproxy.Route{Service: svc, ClusterIP: vip, Port: 80, Protocol: "TCP", Backends: backends}
		w.tables[name].Apply(map[string]*kubeproxy.Route{r.Key(): r})
	}
}

// since returns the requests that ended after t.
func (w *world) since(t sim.Time) []*apptrace.Request {
	var out []*apptrace.Request
	for i, e := range w.events {
		if w.at[i] > t {
			out = append(out, e)
		}
	}
	return out
}

func outcomes(evs []*apptrace.Request) map[string]int {
	out := map[string]int{}
	for _, e := range evs {
		out[e.Outcome]++
	}
	return out
}

// TestClientInCluster: a client on node-1 at 10 requests per second gets
// refused while the Service has no rules, then while its rules have no
// backend; with two running backends every request succeeds, each
// traced once with its backend, its routed state and what the pod's node
// saw, and the uniform pick spreads them over both.
func TestClientInCluster(t *testing.T) {
	w := newWorld(t, 1, []Config{{Name: "c1", Service: svc, Rate: 10}}, nil)
	require.NotEmpty(t, w.events)
	for _, e := range w.events {
		require.Equal(t, apptrace.Request{Client: "c1", Service: svc, Entry: "node-1", Outcome: apptrace.OutcomeRefused,
			Reason: apptrace.ReasonNoService}, *e, "no rules yet")
	}
	w.route()
	t0 := w.W.Now()
	w.Run(5 * time.Second)
	for _, e := range w.since(t0) {
		require.Equal(t, apptrace.ReasonNoEndpoints, e.Reason, "rules without backends reject")
	}

	a := w.pod("a", "node-1", nil)
	b := w.pod("b", "node-2", nil)
	w.route(a, b)
	t1 := w.W.Now()
	w.Run(60 * time.Second)
	evs := w.since(t1)
	require.InDelta(t, 600, len(evs), 90, "about 10 per second")
	perPod := map[string]int{}
	for _, e := range evs {
		require.Equal(t, apptrace.OutcomeOK, e.Outcome)
		require.Equal(t, proxytrace.StateReady, e.Routed)
		require.Equal(t, kubelet.PodRunning, e.PodState)
		require.True(t, e.Ready)
		require.GreaterOrEqual(t, e.Latency, int64(kubelet.AppAnswerTime))
		require.Less(t, e.Latency, int64(kubelet.AppAnswerTime+10*time.Millisecond))
		perPod[e.Pod]++
		if e.Pod == a.Pod {
			require.Equal(t, a.Addr(), e.Addr)
		}
	}
	require.Len(t, perPod, 2)
	require.InDelta(t, perPod[a.Pod], perPod[b.Pod], float64(len(evs))/5, "a uniform pick")
}

// TestClientFailures: a busy backend answers slowly, then too slowly (a
// timeout); a backend whose node is dead times out; a backend whose pod
// is gone is refused by its node.
func TestClientFailures(t *testing.T) {
	w := newWorld(t, 2, []Config{{Name: "c1", Service: svc, Rate: 10}}, nil)
	a := w.pod("a", "node-2", map[string]string{kubelet.AnnotationLoad: "60s-70s=700ms,70s-80s=3s"})
	w.route(a)
	at := func(d time.Duration) sim.Time { return sim.Time(d) }
	require.Less(t, w.W.Now(), at(60*time.Second))
	w.W.Run(at(60 * time.Second))
	w.W.Run(at(70 * time.Second))
	busy := w.since(at(61 * time.Second))
	require.NotEmpty(t, busy)
	for _, e := range busy {
		require.Equal(t, apptrace.OutcomeSlow, e.Outcome, "answered in 700 ms")
	}
	w.W.Run(at(80 * time.Second))
	tooBusy := w.since(at(71 * time.Second))
	require.NotEmpty(t, tooBusy)
	for _, e := range tooBusy {
		require.Equal(t, apptrace.OutcomeTimeout, e.Outcome, "3 s is past the timeout")
		require.Equal(t, int64(DefaultTimeout), e.Latency)
		require.Equal(t, a.Pod, e.Pod, "a timeout still names its backend")
		require.Empty(t, e.PodState, "nobody answered")
	}

	gone := kubeproxy.Backend{Pod: "default/gone", IP: "10.244.4.200", Port: 8080, State: proxytrace.StateTerminating}
	w.route(gone)
	t0 := w.W.Now()
	w.Run(5 * time.Second)
	refused := w.since(t0.Add(DefaultTimeout)) // after the busy window's last timeouts
	require.NotEmpty(t, refused)
	for _, e := range refused {
		require.Equal(t, apptrace.OutcomeRefused, e.Outcome)
		require.Equal(t, kubelet.RefusedNoPod, e.Reason)
		require.Equal(t, kubelet.PodAbsent, e.PodState)
		require.Equal(t, proxytrace.StateTerminating, e.Routed, "routed as the terminating fallback")
	}

	w.route(a)
	w.W.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"node-2"}}})
	t1 := w.W.Now()
	w.Run(10 * time.Second)
	evs := w.since(t1.Add(DefaultTimeout))
	require.NotEmpty(t, evs)
	require.Equal(t, map[string]int{apptrace.OutcomeTimeout: len(evs)}, outcomes(evs), "the backend's node is dead")
}

// TestClientOutside: a client outside the cluster enters through node-2,
// whose rules pick the backend, and node-2 forwards to the pod's node;
// once the entry node is dead every request times out, with no backend.
func TestClientOutside(t *testing.T) {
	w := newWorld(t, 3, nil, []Config{{Name: "ext", Service: svc, Entry: "node-2", Rate: 5}})
	a := w.pod("a", "node-1", nil)
	w.route(a)
	t0 := w.W.Now()
	w.Run(20 * time.Second)
	evs := w.since(t0)
	require.NotEmpty(t, evs)
	for _, e := range evs {
		require.Equal(t, apptrace.OutcomeOK, e.Outcome)
		require.Equal(t, "node-2", e.Entry)
		require.Equal(t, a.Pod, e.Pod)
	}

	w.W.Inject(sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"node-2"}}})
	t1 := w.W.Now()
	w.Run(10 * time.Second)
	evs = w.since(t1.Add(DefaultTimeout))
	require.NotEmpty(t, evs)
	for _, e := range evs {
		require.Equal(t, apptrace.OutcomeTimeout, e.Outcome, "the entry node is dead")
		require.Empty(t, e.Pod)
	}
}

// TestClientDeterministic: the same seed gives the same requests, the
// same picks and the same outcomes; the sending window bounds them.
func TestClientDeterministic(t *testing.T) {
	run := func() []*apptrace.Request {
		w := newWorld(t, 9, []Config{{Name: "c1", Service: svc, Rate: 20, Start: sim.Time(20 * time.Second), Stop: sim.Time(50 * time.Second)}}, nil)
		w.route(w.pod("a", "node-1", nil), w.pod("b", "node-2", nil))
		w.Run(time.Minute)
		for _, at := range w.at {
			require.GreaterOrEqual(t, at, sim.Time(20*time.Second))
			require.Less(t, at, sim.Time(50*time.Second+DefaultTimeout))
		}
		return w.events
	}
	first := run()
	require.NotEmpty(t, first)
	require.Equal(t, first, run())
}

// TestPreStopRace: the rolling-update race at the library's level. A pod is
// deleted while the rules still route to it for a second (kube-proxy has
// not synced yet). With a preStop sleep it keeps serving through that
// second and no request fails; without one (the kubelet-no-prestop
// ablation) it stops accepting at SIGTERM and the requests routed to it
// meanwhile are refused, as metrics.Traffic counts.
func TestPreStopRace(t *testing.T) {
	for _, tc := range []struct {
		name       string
		abl        ablation.Set
		terminated bool
	}{
		{"prestop", ablation.Set{}, false},
		{"no-prestop", ablation.Of(ablation.KubeletNoPreStop), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorldWith(t, 5, tc.abl, []Config{{Name: "c1", Service: svc, Rate: 20}}, nil)
			preStop := func(p *model.Pod) {
				p.Spec.Containers[0].Lifecycle = &model.Lifecycle{PreStop: &model.LifecycleHandler{Sleep: &model.SleepAction{Seconds: 5}}}
			}
			a := w.pod("a", "node-1", nil, preStop)
			b := w.pod("b", "node-2", nil, preStop)
			w.route(a, b)
			w.Run(5 * time.Second)
			m := metrics.NewTraffic()
			w.W.Subscribe(m.Observe)

			deleted := false
			w.Admin().Pods("default").Delete("a", apiclient.DeleteOptions{}, func(model.Object, error) { deleted = true })
			for !deleted {
				w.Run(10 * time.Millisecond)
			}
			w.Run(time.Second)
			w.route(b) // kube-proxy synced the endpoints' change
			w.Run(5 * time.Second)

			v := m.Values()
			require.Greater(t, v["requests"], 100.0)
			if tc.terminated {
				require.Greater(t, v["requests_to_terminated"], 0.0, "requests routed to the pod after SIGTERM were refused")
				require.Less(t, v["request_success"], 1.0)
			} else {
				require.Equal(t, 0.0, v["requests_to_terminated"])
				require.Equal(t, 1.0, v["request_success"], "the preStop sleep covered kube-proxy's lag")
			}
		})
	}
}
