package apiserver

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

func newService(name, clusterIP string) *model.Service {
	return &model.Service{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: clusterIP, Ports: []model.ServicePort{{Port: 80}}}}
}

// TestServiceRangeBands: the usable addresses exclude the network and
// broadcast ones; the static band is min(max(16, size/16), 256) addresses
// (ipallocator's calculateRangeOffset), none for a range under 16.
func TestServiceRangeBands(t *testing.T) {
	cases := []struct {
		cidr, first, last string
		size, band        uint64
	}{
		{"10.96.0.0/12", "10.96.0.1", "10.111.255.254", 1<<20 - 2, 256},
		{"10.0.0.0/24", "10.0.0.1", "10.0.0.254", 254, 16},
		{"10.0.0.0/20", "10.0.0.1", "10.0.15.254", 4094, 255},
		{"10.0.0.0/28", "10.0.0.1", "10.0.0.14", 14, 0},
	}
	for _, c := range cases {
		r := newServiceRange(netip.MustParsePrefix(c.cidr))
		assert.Equal(t, c.first, r.first.String(), c.cidr)
		assert.Equal(t, c.last, r.last.String(), c.cidr)
		assert.Equal(t, c.size, r.size, c.cidr)
		assert.Equal(t, c.band, r.band, c.cidr)
	}
}

// TestIPCandidatesOrder: a dynamic allocation tries every address of the
// dynamic band once, from a random offset, then every address of the
// static band, and never the first usable address (the kubernetes
// Service's).
func TestIPCandidatesOrder(t *testing.T) {
	for _, cidr := range []string{"10.0.0.0/24", "10.0.0.0/28", "10.96.0.0/22"} {
		r := newServiceRange(netip.MustParsePrefix(cidr))
		rnd := sim.NewStream(7, cidr)
		it := &ipCandidates{r: r}
		var got []netip.Addr
		for {
			a, ok := it.next(func(n uint64) uint64 { return rnd.Uint64N(n) })
			if !ok {
				break
			}
			got = append(got, a)
		}
		require.Len(t, got, int(r.size)-1, cidr)
		staticEnd := addAddr(r.first, r.band)
		for i, a := range got {
			assert.True(t, r.cidr.Contains(a) && a != r.first, "%s: %s", cidr, a)
			inStatic := a.Compare(staticEnd) < 0
			assert.Equal(t, i >= int(r.size-r.band), inStatic, "%s: %s at %d: the dynamic band comes first", cidr, a, i)
		}
		sorted := slices.Clone(got)
		slices.SortFunc(sorted, netip.Addr.Compare)
		assert.Len(t, slices.Compact(sorted), len(got), "%s: each address once", cidr)
	}
}

// TestClusterIPAllocation: a Service without a clusterIP gets one from the
// dynamic band of 10.96.0.0/12; a requested one is honoured; a taken one,
// the kubernetes Service's, or one outside the range is a 422; an update
// keeps the IP and may not change it; a delete releases it.
func TestClusterIPAllocation(t *testing.T) {
	tw := newWorld(t, 1, 2, nil)
	a := tw.must(0, create(newService("a", ""))).Object.(*model.Service)
	ip, err := netip.ParseAddr(a.Spec.ClusterIP)
	require.NoError(t, err)
	assert.True(t, DefaultServiceCIDR.Contains(ip))
	assert.True(t, ip.Compare(netip.MustParseAddr("10.96.1.1")) >= 0, "dynamic allocations avoid the static band: %s", ip)
	assert.Equal(t, model.ServiceTypeClusterIP, a.Spec.Type)

	cases := []struct{ name, ip, msg string }{
		{"taken", a.Spec.ClusterIP, `Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"` + a.Spec.ClusterIP +
			`"}: failed to allocate IP ` + a.Spec.ClusterIP + `: provided IP is already allocated`},
		{"kubernetes", "10.96.0.1", `Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated`},
		{"outside", "10.0.0.5", `Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: ` +
			`the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/12`},
	}
	for _, c := range cases {
		resp := tw.do(1, create(newService("b", c.ip)))
		assert.Equal(t, 422, resp.Status.Code, c.name)
		assert.Equal(t, c.msg, resp.Status.Message, c.name)
	}
	b := tw.must(1, create(newService("b", "10.96.0.10"))).Object.(*model.Service)
	assert.Equal(t, "10.96.0.10", b.Spec.ClusterIP, "a free static address is honoured")

	blank := b.DeepCopy()
	blank.Spec.ClusterIP = ""
	blank.Spec.Selector = map[string]string{"app": "api"}
	kept := tw.must(0, update("admin", apiwire.VerbUpdate, blank)).Object.(*model.Service)
	assert.Equal(t, "10.96.0.10", kept.Spec.ClusterIP, "an update that leaves the clusterIP empty keeps it")
	assert.Equal(t, int64(2), kept.Generation)
	moved := kept.DeepCopy()
	moved.Spec.ClusterIP = "10.96.0.11"
	resp := tw.do(0, update("admin", apiwire.VerbUpdate, moved))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Equal(t, `Service "b" is invalid: spec.clusterIP: Invalid value: "10.96.0.11": field is immutable`, resp.Status.Message)

	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "services", Namespace: "default", Name: "b"})
	c := tw.must(1, create(newService("c", "10.96.0.10"))).Object.(*model.Service)
	assert.Equal(t, "10.96.0.10", c.Spec.ClusterIP, "a deleted Service's IP is free again")
}

// TestHeadlessService: a Service with clusterIP "None" is stored without
// an address (no IPAddress is recorded), twice under two names, keeps
// "None" on update, and its delete releases nothing.
func TestHeadlessService(t *testing.T) {
	tw := newWorld(t, 1, 2, nil)
	db := tw.must(0, create(newService("db", model.ClusterIPNone))).Object.(*model.Service)
	assert.Equal(t, model.ClusterIPNone, db.Spec.ClusterIP)
	assert.Equal(t, model.ClusterIPNone, tw.must(1, create(newService("db2", model.ClusterIPNone))).Object.(*model.Service).Spec.ClusterIP)
	resp := tw.do(1, create(newService("db", model.ClusterIPNone)))
	assert.Equal(t, 409, resp.Status.Code, "the name is taken: %s", resp.Status.Message)

	relabelled := db.DeepCopy()
	relabelled.Spec.ClusterIP = ""
	relabelled.Labels = map[string]string{"tier": "db"}
	kept := tw.must(0, update("admin", apiwire.VerbUpdate, relabelled)).Object.(*model.Service)
	assert.Equal(t, model.ClusterIPNone, kept.Spec.ClusterIP)

	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "services", Namespace: "default", Name: "db"})
	a := tw.must(1, create(newService("a", ""))).Object.(*model.Service)
	_, err := netip.ParseAddr(a.Spec.ClusterIP)
	require.NoError(t, err, "a Service beside headless ones still gets an address")
}

// TestClusterIPsUniqueAcrossServers: Services created at once through
// three API servers from a range of 13 addresses get distinct IPs, and the
// range's exhaustion is a 422.
func TestClusterIPsUniqueAcrossServers(t *testing.T) {
	tw := newWorld(t, 3, 3, func(c *Config) { c.ServiceCIDR = netip.MustParsePrefix("10.0.0.0/28") })
	var waits []func() *apiwire.Response
	names := []string{"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14"}
	for i, n := range names {
		waits = append(waits, tw.send(i%3, create(newService(n, ""))))
	}
	seen := map[string]string{}
	full := 0
	for i, w := range waits {
		resp := w()
		if !resp.Status.OK() {
			assert.Equal(t, 422, resp.Status.Code, names[i])
			assert.Contains(t, resp.Status.Message, ": range is full", names[i])
			full++
			continue
		}
		ip := resp.Object.(*model.Service).Spec.ClusterIP
		assert.NotEqual(t, "10.0.0.1", ip)
		prev, dup := seen[ip]
		assert.False(t, dup, "%s and %s both got %s", prev, names[i], ip)
		seen[ip] = names[i]
	}
	assert.Len(t, seen, 13)
	assert.Equal(t, 2, full)
}

// TestEndpointSliceGeneration: a slice has no spec; any change outside
// metadata bumps its generation (the EndpointSlice strategy), and its
// addressType is immutable.
func TestEndpointSliceGeneration(t *testing.T) {
	tw := newWorld(t, 2, 1, nil)
	s := &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: "web-x", Namespace: "default"}, AddressType: model.AddressTypeIPv4,
		Endpoints: []model.Endpoint{{Addresses: []string{"10.244.0.5"}}}}
	got := tw.must(0, create(s)).Object.(*model.EndpointSlice)
	assert.Equal(t, int64(1), got.Generation)
	relabel := got.DeepCopy()
	relabel.Labels = map[string]string{"x": "y"}
	got = tw.must(0, update("admin", apiwire.VerbUpdate, relabel)).Object.(*model.EndpointSlice)
	assert.Equal(t, int64(1), got.Generation, "a metadata change keeps the generation")
	more := got.DeepCopy()
	more.Endpoints = append(more.Endpoints, model.Endpoint{Addresses: []string{"10.244.0.6"}})
	got = tw.must(0, update("admin", apiwire.VerbUpdate, more)).Object.(*model.EndpointSlice)
	assert.Equal(t, int64(2), got.Generation)
	six := got.DeepCopy()
	six.AddressType = model.AddressTypeFQDN
	six.Endpoints = []model.Endpoint{{Addresses: []string{"web.example.com"}}}
	resp := tw.do(0, update("admin", apiwire.VerbUpdate, six))
	assert.Equal(t, 422, resp.Status.Code)
	assert.Equal(t, `EndpointSlice "web-x" is invalid: addressType: Invalid value: "FQDN": field is immutable`, resp.Status.Message)
}
