package kubeproxy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

func ptr[T any](v T) *T { return &v }

// service is Service ns/name at ip with one port "http" 80 -> 8080.
func service(name, ip string) *model.Service {
	return &model.Service{ObjectMeta: model.ObjectMeta{Namespace: "default", Name: name},
		Spec: model.ServiceSpec{ClusterIP: ip, Type: model.ServiceTypeClusterIP,
			Ports: []model.ServicePort{{Name: "http", Protocol: "TCP", Port: 80, TargetPort: model.FromInt(8080)}}}}
}

// ep is an endpoint of pod at ip on node with the conditions given as
// "r" (ready), "s" (serving), "t" (terminating) in conds, all false
// otherwise; conds "" leaves all three unset.
func ep(pod, ip, node, conds string) model.Endpoint {
	e := model.Endpoint{Addresses: []string{ip}, NodeName: node,
		TargetRef: &model.ObjectReference{Kind: model.KindPod, Namespace: "default", Name: pod}}
	if conds != "" {
		has := func(c rune) *bool {
			for _, x := range conds {
				if x == c {
					return ptr(true)
				}
			}
			return ptr(false)
		}
		e.Conditions = model.EndpointConditions{Ready: has('r'), Serving: has('s'), Terminating: has('t')}
	}
	return e
}

// slice is EndpointSlice name of Service svc, port "http" 8080.
func slice(name, svc string, eps ...model.Endpoint) *model.EndpointSlice {
	return &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Namespace: "default", Name: name,
		Labels: map[string]string{model.LabelServiceName: svc, model.LabelManagedBy: model.ManagedByEndpointSliceController}},
		AddressType: model.AddressTypeIPv4, Endpoints: eps,
		Ports: []model.EndpointPort{{Name: ptr("http"), Protocol: ptr("TCP"), Port: ptr(int32(8080))}}}
}

// backends is the route of web:http as "pod/state" strings.
func backends(t *testing.T, c *Cache) []string {
	t.Helper()
	r, ok := c.Routes()["default/web:http"]
	require.True(t, ok, "the route of default/web:http")
	var out []string
	for _, b := range r.Backends {
		out = append(out, b.Pod+"@"+b.Addr()+"/"+b.State)
	}
	return out
}

// TestCategorize: the endpoints a Service port routes to, by conditions.
func TestCategorize(t *testing.T) {
	cases := []struct {
		name            string
		eps             []model.Endpoint
		ignoreReadiness bool
		want            []string
		// local: the Service's internalTrafficPolicy is Local; the
		// ablations noFallback and ignorePolicy.
		local, noFallback, ignorePolicy bool
	}{
		{"ready ones only; unset conditions mean ready",
			[]model.Endpoint{ep("a", "10.1.0.1", "n1", "rs"), ep("b", "10.1.0.2", "n2", ""), ep("c", "10.1.0.3", "n1", "st"), ep("d", "10.1.0.4", "n2", "s")},
			false, []string{"default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/ready"}, false, false, false},
		{"no ready one: fall back to serving-terminating ones",
			[]model.Endpoint{ep("a", "10.1.0.1", "n1", "st"), ep("b", "10.1.0.2", "n2", "t"), ep("c", "10.1.0.3", "n1", "s"), ep("d", "10.1.0.4", "n2", "-")},
			false, []string{"default/a@10.1.0.1:8080/terminating"}, false, false, false},
		{"neither: no backend",
			[]model.Endpoint{ep("b", "10.1.0.2", "n2", "t"), ep("d", "10.1.0.4", "n2", "-")},
			false, nil, false, false, false},
		{"ablation: every endpoint",
			[]model.Endpoint{ep("a", "10.1.0.1", "n1", "rs"), ep("b", "10.1.0.2", "n2", "t"), ep("c", "10.1.0.3", "n1", "st"), ep("d", "10.1.0.4", "n2", "-")},
			true, []string{"default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/not-ready", "default/c@10.1.0.3:8080/terminating", "default/d@10.1.0.4:8080/not-ready"}, false, false, false},
		{"Local: the node's own ready ones",
			[]model.Endpoint{ep("a", "10.1.0.1", "n1", "rs"), ep("b", "10.1.0.2", "n2", "rs"), ep("c", "10.1.0.3", "n1", "st")},
			false, []string{"default/a@10.1.0.1:8080/ready"}, true, false, false},
		{"Local: no local ready one, the node's own serving-terminating ones, not another node's ready ones",
			[]model.Endpoint{ep("a", "10.1.0.1", "n2", "rs"), ep("b", "10.1.0.2", "n1", "st"), ep("c", "10.1.0.3", "n2", "st")},
			false, []string{"default/b@10.1.0.2:8080/terminating"}, true, false, false},
		{"Local: nothing on the node, no backend",
			[]model.Endpoint{ep("a", "10.1.0.1", "n2", "rs")},
			false, nil, true, false, false},
		{"ablation ignores-traffic-policy: Local routes as Cluster",
			[]model.Endpoint{ep("a", "10.1.0.1", "n1", "rs"), ep("b", "10.1.0.2", "n2", "rs")},
			false, []string{"default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/ready"}, true, false, true},
		{"ablation no-terminating-fallback: no ready one, no backend",
			[]model.Endpoint{ep("a", "10.1.0.1", "n1", "st"), ep("b", "10.1.0.2", "n2", "t")},
			false, nil, false, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache("n1")
			c.IgnoreReadiness = tc.ignoreReadiness
			c.NoTerminatingFallback, c.IgnoreTrafficPolicy = tc.noFallback, tc.ignorePolicy
			svc := service("web", "10.96.0.10")
			if tc.local {
				svc.Spec.InternalTrafficPolicy = model.ServiceTrafficPolicyLocal
			}
			c.OnService(nil, svc)
			c.OnSlice(nil, slice("web-1", "web", tc.eps...))
			require.Equal(t, tc.want, backends(t, c))
		})
	}
}

// TestRoutesFromSlices: a Service port's backends come from all its slices,
// by the slice port of its name, an address once; a Service without a
// cluster IP, a slice without the service-name label, of a headless
// Service or of another proxy's count for nothing.
func TestRoutesFromSlices(t *testing.T) {
	c := NewCache("n1")
	c.OnService(nil, service("web", "10.96.0.10"))
	headless := service("db", "None")
	c.OnService(nil, headless)
	other := service("other", "10.96.0.11")
	other.Labels = map[string]string{LabelServiceProxyName: "not-us"}
	c.OnService(nil, other)
	c.OnSlice(nil, slice("web-1", "web", ep("a", "10.1.0.1", "n1", "rs"), ep("b", "10.1.0.2", "n2", "rs")))
	c.OnSlice(nil, slice("web-2", "web", ep("b", "10.1.0.2", "n2", "-"), ep("c", "10.1.0.3", "n2", "rs")))
	unlabelled := slice("web-3", "web", ep("x", "10.1.0.9", "n1", "rs"))
	delete(unlabelled.Labels, model.LabelServiceName)
	c.OnSlice(nil, unlabelled)
	hl := slice("web-4", "web", ep("y", "10.1.0.8", "n1", "rs"))
	hl.Labels[LabelHeadless] = ""
	c.OnSlice(nil, hl)
	other4 := slice("web-5", "web", ep("z", "10.1.0.7", "n1", "rs"))
	other4.Ports[0].Name = ptr("metrics")
	other4.Ports[0].Port = ptr(int32(9090))
	c.OnSlice(nil, other4)

	require.Equal(t, []string{"default/a@10.1.0.1:8080/ready", "default/b@10.1.0.2:8080/ready", "default/c@10.1.0.3:8080/ready"},
		backends(t, c), "b from web-1 (the first slice by name); no endpoint of another port, of an unlabelled or headless slice")
	routes := c.Routes()
	require.Equal(t, []string{"default/web:http"}, sim.SortedKeys(routes), "no rules for a headless Service or another proxy's")
	r := routes["default/web:http"]
	require.Equal(t, "10.96.0.10:80/TCP", r.VIP())
}

// TestChangesThatMatter: only a change to what the rules are made of
// requests a sync.
func TestChangesThatMatter(t *testing.T) {
	c := NewCache("n1")
	svc := service("web", "10.96.0.10")
	require.True(t, c.OnService(nil, svc), "a new Service")
	relabelled := svc.DeepCopy()
	relabelled.Labels = map[string]string{"team": "x"}
	require.False(t, c.OnService(svc, relabelled), "a label change")
	moved := relabelled.DeepCopy()
	moved.Spec.Ports[0].Port = 81
	require.True(t, c.OnService(relabelled, moved), "a port change")
	local := moved.DeepCopy()
	local.Spec.InternalTrafficPolicy = model.ServiceTrafficPolicyLocal
	require.True(t, c.OnService(moved, local), "a traffic policy change")
	c.IgnoreServiceUpdates = true
	require.False(t, c.OnService(local, moved), "ablation ignores-service-updates: an update requests no sync")
	c.IgnoreServiceUpdates = false

	s := slice("web-1", "web", ep("a", "10.1.0.1", "n1", "rs"))
	require.True(t, c.OnSlice(nil, s))
	annotated := s.DeepCopy()
	annotated.Annotations = map[string]string{"k": "v"}
	require.False(t, c.OnSlice(s, annotated), "an annotation change")
	unready := annotated.DeepCopy()
	unready.Endpoints[0].Conditions.Ready = ptr(false)
	require.True(t, c.OnSlice(annotated, unready), "a condition change")

	require.True(t, c.OnSliceDelete(unready))
	require.False(t, c.OnSliceDelete(unready), "already gone")
	require.True(t, c.OnServiceDelete(moved))
	require.False(t, c.OnServiceDelete(moved), "already gone")
	require.Empty(t, c.Routes())
}

// TestTableApply: a sync traces only the Service ports whose route changed,
// appeared or went away; Lookup finds a route by its virtual IP; Flush
// empties the table.
func TestTableApply(t *testing.T) {
	c := NewCache("n1")
	tbl := NewTable("n1")
	c.OnService(nil, service("web", "10.96.0.10"))
	c.OnService(nil, service("api", "10.96.0.20"))
	c.OnSlice(nil, slice("web-1", "web", ep("a", "10.1.0.1", "n1", "rs")))

	evs := tbl.Apply(c.Routes())
	require.Equal(t, []string{
		"node=n1 service=default/api port_name=http ip=10.96.0.20 port=80 proto=TCP",
		"node=n1 service=default/web port_name=http ip=10.96.0.10 port=80 proto=TCP pod:default/a@10.1.0.1:8080/ready",
	}, texts(evs))
	require.Empty(t, tbl.Apply(c.Routes()), "nothing changed, nothing traced")

	r, ok := tbl.Lookup("10.96.0.10", 80, "")
	require.True(t, ok)
	require.Equal(t, []Backend{{Pod: "default/a", IP: "10.1.0.1", Port: 8080, Node: "n1", State: proxytrace.StateReady}}, r.Backends)
	r, ok = tbl.Lookup("10.96.0.20", 80, "TCP")
	require.True(t, ok, "a Service without endpoints has rules")
	require.Empty(t, r.Backends, "that reject its traffic")
	_, ok = tbl.Lookup("10.96.0.10", 81, "TCP")
	require.False(t, ok)

	s2 := slice("web-1", "web", ep("a", "10.1.0.1", "n1", "st"))
	c.OnSlice(nil, s2)
	c.OnServiceDelete(service("api", "10.96.0.20"))
	require.Equal(t, []string{
		"node=n1 service=default/api port_name=http ip=10.96.0.20 port=80 proto=TCP deleted",
		"node=n1 service=default/web port_name=http ip=10.96.0.10 port=80 proto=TCP pod:default/a@10.1.0.1:8080/terminating",
	}, texts(tbl.Apply(c.Routes())))
	_, ok = tbl.Lookup("10.96.0.20", 80, "TCP")
	require.False(t, ok, "a deleted Service has no rules")

	require.Equal(t, []string{"node=n1 reason=disconnected"}, texts(tbl.Flush(proxytrace.FlushDisconnected)))
	require.Empty(t, tbl.Routes())
	require.Empty(t, tbl.Flush(proxytrace.FlushDisconnected), "an empty table flushes silently")
}

func texts(evs []sim.Data) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, string(ev.AppendText(nil)))
	}
	return out
}
