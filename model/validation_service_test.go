package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func validService() *Service {
	s := &Service{ObjectMeta: ObjectMeta{Name: "web", Namespace: "default"},
		Spec: ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []ServicePort{{Port: 80}}}}
	SetDefaults(s)
	return s
}

func validSlice() *EndpointSlice {
	s := &EndpointSlice{ObjectMeta: ObjectMeta{Name: "web-abcde", Namespace: "default",
		Labels: map[string]string{LabelServiceName: "web", LabelManagedBy: ManagedByEndpointSliceController}},
		AddressType: AddressTypeIPv4,
		Endpoints: []Endpoint{{Addresses: []string{"10.244.1.5"}, NodeName: "node-1",
			Conditions: EndpointConditions{Ready: Ptr(true), Serving: Ptr(true), Terminating: Ptr(false)}}},
		Ports: []EndpointPort{{Port: Ptr[int32](80)}}}
	SetDefaults(s)
	return s
}

// TestSetDefaultsService: type ClusterIP, protocol TCP and targetPort =
// port (pkg/apis/core/v1/defaults.go SetDefaults_Service); a set
// targetPort, number or name, is kept.
func TestSetDefaultsService(t *testing.T) {
	s := &Service{Spec: ServiceSpec{Ports: []ServicePort{{Port: 80}, {Port: 81, TargetPort: FromInt(8081), Protocol: ProtocolUDP},
		{Port: 82, TargetPort: FromString("http")}, {Port: 83, TargetPort: FromString("")}}}}
	SetDefaults(s)
	assert.Equal(t, ServiceTypeClusterIP, s.Spec.Type)
	assert.Equal(t, []ServicePort{
		{Port: 80, Protocol: ProtocolTCP, TargetPort: FromInt(80)},
		{Port: 81, Protocol: ProtocolUDP, TargetPort: FromInt(8081)},
		{Port: 82, Protocol: ProtocolTCP, TargetPort: FromString("http")},
		{Port: 83, Protocol: ProtocolTCP, TargetPort: FromInt(83)},
	}, s.Spec.Ports)
	assert.Empty(t, s.Spec.ClusterIP, "the API server allocates the clusterIP, not defaulting")
}

// TestSetDefaultsEndpointSlice: a port's name defaults to "" and its
// protocol to TCP (pkg/apis/discovery/v1/defaults.go).
func TestSetDefaultsEndpointSlice(t *testing.T) {
	s := &EndpointSlice{Ports: []EndpointPort{{Port: Ptr[int32](80)}, {Name: Ptr("dns"), Protocol: Ptr(ProtocolUDP)}}}
	SetDefaults(s)
	assert.Equal(t, []EndpointPort{{Name: Ptr(""), Protocol: Ptr(ProtocolTCP), Port: Ptr[int32](80)},
		{Name: Ptr("dns"), Protocol: Ptr(ProtocolUDP)}}, s.Ports)
}

func TestValidateServiceMessages(t *testing.T) {
	dns1035 := `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, ` +
		`and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`
	cases := []struct {
		name   string
		mutate func(s *Service)
		want   []string
	}{
		{"valid", func(s *Service) {}, nil},
		{"name not a DNS-1035 label", func(s *Service) { s.Name = "1web" },
			[]string{`metadata.name: Invalid value: "1web": ` + dns1035}},
		{"type other than ClusterIP", func(s *Service) { s.Spec.Type = "NodePort" },
			[]string{`spec.type: Unsupported value: "NodePort": supported values: "ClusterIP"`}},
		{"no ports", func(s *Service) { s.Spec.Ports = nil },
			[]string{`spec.ports: Required value`}},
		{"port out of range", func(s *Service) { s.Spec.Ports[0].Port = 70000; s.Spec.Ports[0].TargetPort = FromInt(0) },
			[]string{`spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
				`spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive`}},
		{"bad protocol", func(s *Service) { s.Spec.Ports[0].Protocol = "HTTP" },
			[]string{`spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`}},
		{"missing protocol", func(s *Service) { s.Spec.Ports[0].Protocol = "" },
			[]string{`spec.ports[0].protocol: Required value`}},
		{"names required with several ports", func(s *Service) {
			s.Spec.Ports = append(s.Spec.Ports, ServicePort{Name: "metrics", Port: 9090, Protocol: ProtocolTCP, TargetPort: FromInt(9090)})
		}, []string{`spec.ports[0].name: Required value`}},
		{"duplicate names and port/protocol", func(s *Service) {
			s.Spec.Ports = []ServicePort{{Name: "http", Port: 80, Protocol: ProtocolTCP, TargetPort: FromInt(80)},
				{Name: "http", Port: 80, Protocol: ProtocolTCP, TargetPort: FromInt(8080)}}
		}, []string{`spec.ports[1].name: Duplicate value: "http"`,
			`spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", Port:80}`}},
		{"same port, other protocol", func(s *Service) {
			s.Spec.Ports = []ServicePort{{Name: "dns", Port: 53, Protocol: ProtocolTCP, TargetPort: FromInt(53)},
				{Name: "dns-udp", Port: 53, Protocol: ProtocolUDP, TargetPort: FromInt(53)}}
		}, nil},
		{"bad named targetPort", func(s *Service) { s.Spec.Ports[0].TargetPort = FromString("Http--") },
			[]string{`spec.ports[0].targetPort: Invalid value: "Http--": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
				`spec.ports[0].targetPort: Invalid value: "Http--": must not contain consecutive hyphens`,
				`spec.ports[0].targetPort: Invalid value: "Http--": must not begin or end with a hyphen`}},
		{"bad selector", func(s *Service) { s.Spec.Selector = map[string]string{"app": "-web"} },
			[]string{`spec.selector: Invalid value: "-web": ` + valueMsg}},
		{"clusterIP not an IPv4 address", func(s *Service) { s.Spec.ClusterIP = "none" },
			[]string{`spec.clusterIP: Invalid value: "none": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`}},
		{"headless", func(s *Service) { s.Spec.ClusterIP = ClusterIPNone }, nil},
		{"clusterIP set", func(s *Service) { s.Spec.ClusterIP = "10.96.0.10" }, nil},
		{"internalTrafficPolicy Local", func(s *Service) { s.Spec.InternalTrafficPolicy = ServiceTrafficPolicyLocal }, nil},
		{"internalTrafficPolicy unsupported", func(s *Service) { s.Spec.InternalTrafficPolicy = "Node" },
			[]string{`spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := validService()
			c.mutate(s)
			assert.Equal(t, c.want, errorStrings(Validate(s)))
		})
	}
}

func TestValidateEndpointSliceMessages(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(s *EndpointSlice)
		want   []string
	}{
		{"valid", func(s *EndpointSlice) {}, nil},
		{"no address type", func(s *EndpointSlice) { s.AddressType = "" }, []string{`addressType: Required value`}},
		{"unknown address type", func(s *EndpointSlice) { s.AddressType = "IPv5" },
			[]string{`addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"`}},
		{"too many endpoints", func(s *EndpointSlice) {
			e := s.Endpoints[0]
			s.Endpoints = nil
			for range 1001 {
				s.Endpoints = append(s.Endpoints, e)
			}
		}, []string{`endpoints: Too many: 1001: must have at most 1000 items`}},
		{"endpoint without address", func(s *EndpointSlice) { s.Endpoints[0].Addresses = nil },
			[]string{`endpoints[0].addresses: Required value: must contain at least 1 address`}},
		{"too many addresses", func(s *EndpointSlice) {
			s.Endpoints[0].Addresses = strings.Split(strings.Repeat("10.0.0.1,", 101)[:9*101-1], ",")
		}, []string{`endpoints[0].addresses: Too many: 101: must have at most 100 items`}},
		{"address not IPv4", func(s *EndpointSlice) { s.Endpoints[0].Addresses = []string{"fd00::1"} },
			[]string{`endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address`}},
		{"bad node name", func(s *EndpointSlice) { s.Endpoints[0].NodeName = "Node_1" },
			[]string{`endpoints[0].nodeName: Invalid value: "Node_1": ` + subdomainMsg}},
		{"duplicate port names and a bad protocol", func(s *EndpointSlice) {
			s.Ports = append(s.Ports, EndpointPort{Name: Ptr(""), Protocol: Ptr("ICMP")})
		}, []string{`ports[1].name: Duplicate value: ""`,
			`ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		{"port without protocol", func(s *EndpointSlice) { s.Ports[0].Protocol = nil }, []string{`ports[0].protocol: Required value`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := validSlice()
			c.mutate(s)
			assert.Equal(t, c.want, errorStrings(Validate(s)))
		})
	}
}

// TestValidateServiceAndSliceUpdate: a Service's clusterIP may be set once
// and never changed; a slice's addressType never changes.
func TestValidateServiceAndSliceUpdate(t *testing.T) {
	unset := validService()
	set := validService()
	set.Spec.ClusterIP = "10.96.0.10"
	assert.Empty(t, ValidateUpdate(unset, set), "an unset clusterIP may be set")
	moved := set.DeepCopy()
	moved.Spec.ClusterIP = "10.96.0.11"
	assert.Equal(t, []string{`spec.clusterIP: Invalid value: "10.96.0.11": field is immutable`}, errorStrings(ValidateUpdate(set, moved)))
	relabelled := set.DeepCopy()
	relabelled.Spec.Selector = map[string]string{"app": "api"}
	assert.Empty(t, ValidateUpdate(set, relabelled), "the selector may change")

	s := validSlice()
	s6 := s.DeepCopy()
	s6.AddressType = AddressTypeIPv6
	s6.Endpoints[0].Addresses = []string{"fd00::1"}
	require.Equal(t, []string{`addressType: Invalid value: "IPv6": field is immutable`}, errorStrings(ValidateUpdate(s, s6)))
	more := s.DeepCopy()
	more.Endpoints = append(more.Endpoints, Endpoint{Addresses: []string{"10.244.2.7"}})
	assert.Empty(t, ValidateUpdate(s, more))
}
