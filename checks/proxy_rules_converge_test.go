package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// prSvc is Service default/<name> at ip with ports http 80/TCP and dns
// 53/UDP.
func prSvc(name, ip string) *model.Service {
	return &model.Service{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", UID: model.UID("u-" + name)},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": name}, ClusterIP: ip, Type: model.ServiceTypeClusterIP,
			Ports: []model.ServicePort{{Name: "http", Port: 80, Protocol: model.ProtocolTCP}, {Name: "dns", Port: 53, Protocol: model.ProtocolUDP}}}}
}

// prEP is an endpoint of pod at ip on node, with conditions "r" (ready),
// "s" (serving), "t" (terminating) set true and the others false.
func prEP(pod, ip, node, conds string) model.Endpoint {
	has := func(c rune) *bool {
		for _, x := range conds {
			if x == c {
				return model.Ptr(true)
			}
		}
		return model.Ptr(false)
	}
	return model.Endpoint{Addresses: []string{ip}, NodeName: node,
		Conditions: model.EndpointConditions{Ready: has('r'), Serving: has('s'), Terminating: has('t')},
		TargetRef:  &model.ObjectReference{Kind: model.KindPod, Namespace: "default", Name: pod}}
}

// prSlice is slice name of Service svc with ports http 8080/TCP and dns
// 5353/UDP.
func prSlice(name, svc string, eps ...model.Endpoint) *model.EndpointSlice {
	return &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{model.LabelServiceName: svc, model.LabelManagedBy: model.ManagedByEndpointSliceController}},
		AddressType: model.AddressTypeIPv4, Endpoints: eps,
		Ports: []model.EndpointPort{{Name: model.Ptr("http"), Protocol: model.Ptr(model.ProtocolTCP), Port: model.Ptr(int32(8080))},
			{Name: model.Ptr("dns"), Protocol: model.Ptr(model.ProtocolUDP), Port: model.Ptr(int32(5353))}}}
}

// prRules is node's Rules event for svc's port at vip ip:port/proto with
// backends "pod@addr/state".
func prRules(node, svc, port, ip string, p int32, proto string, backends ...string) *proxytrace.Rules {
	r := &proxytrace.Rules{Node: node, Service: "default/" + svc, PortName: port, ClusterIP: ip, Port: p, Protocol: proto}
	for _, b := range backends {
		var pod, addr, state string
		for i := range b {
			if b[i] == '@' {
				pod, b = b[:i], b[i+1:]
				break
			}
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == '/' {
				addr, state = b[:i], b[i+1:]
				break
			}
		}
		r.Backends = append(r.Backends, proxytrace.Backend{Pod: pod, Addr: addr, State: state})
	}
	return r
}

func TestProxyRulesConverge(t *testing.T) {
	const ip = "10.96.0.10"
	boot := func(w *epWorld, nodes ...string) {
		for _, n := range nodes {
			w.steps = append(w.steps, at(0, &proxytrace.Flush{Node: n, Reason: proxytrace.FlushBoot}))
		}
	}
	web := prSvc("web", ip)
	two := prSlice("web-1", "web", prEP("a", "10.1.0.1", "n1", "rs"), prEP("b", "10.1.0.2", "n2", "rs"), prEP("c", "10.1.0.3", "n2", "s"))
	// rulesOf are the right rules of web on node with slice two.
	rulesOf := func(w *epWorld, ms int64, node string) {
		w.steps = append(w.steps,
			at(ms, prRules(node, "web", "dns", ip, 53, "UDP", "default/a@10.1.0.1:5353/ready", "default/b@10.1.0.2:5353/ready")),
			at(ms, prRules(node, "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/ready")))
	}
	leaving := prSlice("web-1", "web", prEP("a", "10.1.0.1", "n1", "st"), prEP("b", "10.1.0.2", "n2", "t"))
	local := prSvc("web", ip)
	local.Spec.InternalTrafficPolicy = model.ServiceTrafficPolicyLocal
	headless := prSvc("db", "None")
	other := prSvc("legacy", "10.96.0.11")
	other.Labels = map[string]string{model.LabelServiceProxyName: "another-proxy"}
	moved := web.DeepCopy()
	moved.Spec.Ports[0].Port = 8000
	cases := []struct {
		name  string
		build func(w *epWorld)
		fail  string // the first offense, or "" for a pass
	}{
		{"both ports of a Service on two nodes, ready endpoints only", func(w *epWorld) {
			boot(w, "n1", "n2")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			rulesOf(w, 3000, "n2")
		}, ""},
		{"a port without rules", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/ready")))
		}, "at the end: node n1 has no rules for default/web:dns, which should route 10.96.0.10:53/UDP to default/a@10.1.0.1:5353/ready, default/b@10.1.0.2:5353/ready"},
		{"a not-ready endpoint routed", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/ready", "default/c@10.1.0.3:8080/not-ready")))
		}, "at the end: node n1 routes default/web:http to default/a@10.1.0.1:8080/ready, default/b@10.1.0.2:8080/ready, default/c@10.1.0.3:8080/not-ready, its Service and slices call for default/a@10.1.0.1:8080/ready, default/b@10.1.0.2:8080/ready"},
		{"no ready endpoint: the serving-terminating one", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, leaving)
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "dns", ip, 53, "UDP", "default/a@10.1.0.1:5353/terminating")),
				at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/terminating")))
		}, ""},
		{"no ready endpoint, and no fallback", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, leaving)
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "dns", ip, 53, "UDP")), at(3000, prRules("n1", "web", "http", ip, 80, "TCP")))
		}, "at the end: node n1 routes default/web:dns to nothing, its Service and slices call for default/a@10.1.0.1:5353/terminating"},
		{"Local: each node its own", func(w *epWorld) {
			boot(w, "n1", "n2", "n3")
			w.put(1000, local)
			w.put(2000, two)
			w.steps = append(w.steps,
				at(3000, prRules("n1", "web", "dns", ip, 53, "UDP", "default/a@10.1.0.1:5353/ready")),
				at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready")),
				at(3000, prRules("n2", "web", "dns", ip, 53, "UDP", "default/b@10.1.0.2:5353/ready")),
				at(3000, prRules("n2", "web", "http", ip, 80, "TCP", "default/b@10.1.0.2:8080/ready")),
				at(3000, prRules("n3", "web", "dns", ip, 53, "UDP")),
				at(3000, prRules("n3", "web", "http", ip, 80, "TCP")))
		}, ""},
		{"Local routed as Cluster", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, local)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
		}, "at the end: node n1 routes default/web:dns to default/a@10.1.0.1:5353/ready, default/b@10.1.0.2:5353/ready, its Service and slices call for default/a@10.1.0.1:5353/ready"},
		{"Local: the node's own serving-terminating one, not another node's ready one", func(w *epWorld) {
			boot(w, "n2")
			w.put(1000, local)
			w.put(2000, prSlice("web-1", "web", prEP("a", "10.1.0.1", "n1", "rs"), prEP("b", "10.1.0.2", "n2", "st")))
			w.steps = append(w.steps,
				at(3000, prRules("n2", "web", "dns", ip, 53, "UDP", "default/b@10.1.0.2:5353/terminating")),
				at(3000, prRules("n2", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready")))
		}, "at the end: node n2 routes default/web:http to default/a@10.1.0.1:8080/ready, its Service and slices call for default/b@10.1.0.2:8080/terminating"},
		{"headless and another proxy's Services get no rules", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, headless)
			w.put(1000, other)
			hl := prSlice("db-1", "db", prEP("d", "10.1.0.4", "n1", "rs"))
			hl.Labels[model.LabelHeadless] = ""
			w.put(2000, hl)
			w.put(2000, prSlice("legacy-1", "legacy", prEP("e", "10.1.0.5", "n1", "rs")))
		}, ""},
		{"rules for a headless Service", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, headless)
			w.put(2000, prSlice("db-1", "db", prEP("d", "10.1.0.4", "n1", "rs")))
			w.steps = append(w.steps, at(3000, prRules("n1", "db", "http", "None", 80, "TCP", "default/d@10.1.0.4:8080/ready")))
		}, "at the end: node n1 has rules for default/db:http (None:80/TCP to default/d@10.1.0.4:8080/ready), which no proxied Service port calls for"},
		{"a slice port of another protocol is no endpoint of the port", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			s := prSlice("web-1", "web", prEP("a", "10.1.0.1", "n1", "rs"))
			s.Ports[1].Protocol = model.Ptr(model.ProtocolTCP)
			w.put(2000, s)
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "dns", ip, 53, "UDP", "default/a@10.1.0.1:5353/ready")),
				at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready")))
		}, "at the end: node n1 routes default/web:dns to default/a@10.1.0.1:5353/ready, its Service and slices call for nothing"},
		{"a port change never programmed, judged at the next change", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.put(10000, moved)
			w.put(30000, web)
			rulesOf(w, 31000, "n1")
		}, "at 30.000000s, after 20s without a change: node n1's rules for default/web:http match 10.96.0.10:80/TCP, the Service says 10.96.0.10:8000/TCP"},
		{"a change in the last 5 s is not judged", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.put(57000, moved)
		}, ""},
		{"a node booted in the last 5 s is not judged", func(w *epWorld) {
			w.put(1000, web)
			w.put(2000, two)
			w.steps = append(w.steps, at(56000, &proxytrace.Flush{Node: "n1", Reason: proxytrace.FlushBoot}))
		}, ""},
		{"a flushed table is judged", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.steps = append(w.steps, at(20000, &proxytrace.Flush{Node: "n1", Reason: proxytrace.FlushDisconnected}))
		}, "node n1 dropped its rules for default/web:dns, whose Service has had ready or serving endpoints since 2.000000s, longer than the 15s a kube-proxy may trail"},
		{"a flushed table soon after the endpoints came, rebuilt", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.steps = append(w.steps, at(10000, &proxytrace.Flush{Node: "n1", Reason: proxytrace.FlushDisconnected}))
			rulesOf(w, 11000, "n1")
		}, ""},
		{"a port's rules removed while its Service has endpoints", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.steps = append(w.steps, at(30000, &proxytrace.Rules{Node: "n1", Service: "default/web", PortName: "http", Deleted: true}))
		}, "node n1 dropped its rules for default/web:http, whose Service has had ready or serving endpoints since 2.000000s, longer than the 15s a kube-proxy may trail"},
		{"a port's backends emptied while its Service has endpoints", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.steps = append(w.steps, at(30000, prRules("n1", "web", "http", ip, 80, "TCP")))
		}, "node n1 dropped its rules for default/web:http, whose Service has had ready or serving endpoints since 2.000000s, longer than the 15s a kube-proxy may trail"},
		{"backends emptied after the endpoints went", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, web)
			w.put(2000, two)
			rulesOf(w, 3000, "n1")
			w.put(30000, prSlice("web-1", "web"))
			w.steps = append(w.steps, at(30500, prRules("n1", "web", "http", ip, 80, "TCP")), at(30500, prRules("n1", "web", "dns", ip, 53, "UDP")))
		}, ""},
		{"a Local Service's rules are not judged between quiet points", func(w *epWorld) {
			boot(w, "n1")
			w.put(1000, local)
			w.put(2000, two)
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready")))
			w.steps = append(w.steps, at(30000, prRules("n1", "web", "http", ip, 80, "TCP")), at(30000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready")))
		}, "at the end: node n1 has no rules for default/web:dns, which should route 10.96.0.10:53/UDP to default/a@10.1.0.1:5353/ready"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &epWorld{}
			c.build(w)
			res := feed(NewProxyRulesConverge(ProxyRulesConvergeOptions{}), w.end()...)
			if c.fail == "" {
				require.True(t, res.OK, res.String())
				return
			}
			require.False(t, res.OK)
			require.NotEmpty(t, res.Offenses)
			require.Equal(t, c.fail, res.Offenses[0].What)
		})
	}
}

// TestProxyRulesKeepExcusedByOwnHost: a node's own crash or pause within
// the lag excuses a drop of its rules; a fault of another host does not.
func TestProxyRulesKeepExcusedByOwnHost(t *testing.T) {
	const ip = "10.96.0.10"
	for _, tc := range []struct {
		name   string
		host   sim.HostID
		dropOK bool
	}{{"the node's own pause", 1, true}, {"an API server's crash", 2, false}} {
		t.Run(tc.name, func(t *testing.T) {
			w := &epWorld{}
			w.steps = append(w.steps, at(0, &proxytrace.Flush{Node: "n1", Reason: proxytrace.FlushBoot}))
			w.put(1000, prSvc("web", ip))
			w.put(2000, prSlice("web-1", "web", prEP("a", "10.1.0.1", "n1", "rs")))
			w.steps = append(w.steps, at(3000, prRules("n1", "web", "http", ip, 80, "TCP", "default/a@10.1.0.1:8080/ready")))
			w.steps = append(w.steps, at(40000, &proxytrace.Rules{Node: "n1", Service: "default/web", PortName: "http", Deleted: true}))
			var evs []sim.Event
			for _, s := range w.end() {
				evs = append(evs, sim.Event{At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Host: 1, Data: s.data})
			}
			fault := sim.Event{At: sim.Time(35 * time.Second), Kind: sim.KindFault, Host: tc.host, Name: string(sim.FaultPause)}
			i := len(evs)
			for j := range evs {
				if r, ok := evs[j].Data.(*proxytrace.Rules); ok && r.Deleted {
					i = j
				}
			}
			evs = append(evs[:i], append([]sim.Event{fault}, evs[i:]...)...)
			for i := range evs {
				evs[i].Seq = uint64(i)
			}
			res := feedEvents(NewProxyRulesConverge(ProxyRulesConvergeOptions{}), evs)
			for _, o := range res.Offenses {
				require.Equal(t, tc.dropOK, !strings.Contains(o.What, "dropped its rules"), o.What)
			}
			if !tc.dropOK {
				require.NotEmpty(t, res.Offenses)
			}
		})
	}
}

// TestProxyRulesConvergeAfterFaults: no judgement within Recovery after a
// fault, and the detail counts the quiet points.
func TestProxyRulesConvergeAfterFaults(t *testing.T) {
	w := &epWorld{}
	w.steps = append(w.steps, at(0, &proxytrace.Flush{Node: "n1", Reason: proxytrace.FlushBoot}))
	w.put(1000, prSvc("web", "10.96.0.10"))
	var evs []sim.Event
	for _, s := range w.end() {
		evs = append(evs, sim.Event{At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Data: s.data})
	}
	crash := sim.Event{At: sim.Time(100 * time.Millisecond), Kind: sim.KindFault, Name: string(sim.FaultCrash)}
	restart := sim.Event{At: sim.Time(200 * time.Millisecond), Kind: sim.KindFault, Name: string(sim.FaultRestart)}
	evs = append(evs[:1], append([]sim.Event{crash, restart}, evs[1:]...)...)
	for i := range evs {
		evs[i].Seq = uint64(i)
	}
	res := feedEvents(NewProxyRulesConverge(ProxyRulesConvergeOptions{}), evs)
	require.True(t, res.OK, res.String())
	require.Equal(t, "0 quiet points judged (0 node tables); the end was not quiet", res.Detail)

	res = feedEvents(NewProxyRulesConverge(ProxyRulesConvergeOptions{Recovery: 500 * time.Millisecond}), evs)
	require.False(t, res.OK)
	require.Equal(t, "at the end: node n1 has no rules for default/web:dns, which should route 10.96.0.10:53/UDP to nothing", res.Offenses[0].What)
}
