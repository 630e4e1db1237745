package model

import (
	"fmt"
	"net/netip"
)

// validIPDetail is the detail of an address that does not parse
// (apimachinery's IsValidIP).
const validIPDetail = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"

// ValidateService checks a Service on create, after defaulting, as core
// validation's ValidateService (pkg/apis/core/validation/validation.go)
// restricted to kubesim's fields: a DNS-1035 label name and a namespace;
// type ClusterIP (the only type kubesim serves); at least one port, each
// with a port number in 1-65535, a supported protocol, a valid targetPort
// (number or IANA name), a DNS-1123 label name that is unique and required
// once there are several ports, and no two ports with the same port and
// protocol; valid selector labels; and a clusterIP, when set, that is an
// IPv4 address or "None", a headless Service (the API server allocates
// one when it is empty); an
// internalTrafficPolicy, when set, of Cluster or Local
// (validateServiceInternalTrafficFieldsValue).
func ValidateService(svc *Service) ErrorList {
	errs := ValidateObjectMeta(&svc.ObjectMeta, true, IsDNS1035Label, "metadata")
	spec := &svc.Spec
	switch spec.Type {
	case ServiceTypeClusterIP:
	case "":
		errs = append(errs, required("spec.type", ""))
	default:
		errs = append(errs, notSupported("spec.type", spec.Type, ServiceTypeClusterIP))
	}
	if len(spec.Ports) == 0 {
		errs = append(errs, required("spec.ports", ""))
	}
	names := map[string]bool{}
	type portKey struct {
		protocol string
		port     int32
	}
	seen := map[portKey]bool{}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		path := index("spec.ports", i)
		errs = append(errs, validateServicePort(p, len(spec.Ports) > 1, names, path)...)
		k := portKey{p.Protocol, p.Port}
		if seen[k] {
			errs = append(errs, duplicate(path, servicePortKey{p.Protocol, p.Port}))
		}
		seen[k] = true
	}
	errs = append(errs, ValidateLabels(spec.Selector, "spec.selector")...)
	switch spec.InternalTrafficPolicy {
	case "", ServiceTrafficPolicyCluster, ServiceTrafficPolicyLocal:
	default:
		errs = append(errs, notSupported("spec.internalTrafficPolicy", spec.InternalTrafficPolicy, ServiceTrafficPolicyCluster, ServiceTrafficPolicyLocal))
	}
	if spec.ClusterIP != "" && spec.ClusterIP != ClusterIPNone {
		if a, err := netip.ParseAddr(spec.ClusterIP); err != nil || !a.Is4() {
			errs = append(errs, invalid("spec.clusterIP", spec.ClusterIP, validIPDetail))
		}
	}
	return errs
}

// servicePortKey prints a duplicate (protocol, port) pair as field.Duplicate
// shows the core.ServicePort key upstream builds.
type servicePortKey struct {
	protocol string
	port     int32
}

func (k servicePortKey) String() string {
	return fmt.Sprintf("core.ServicePort{Name:\"\", Protocol:%q, Port:%d}", k.protocol, k.port)
}

// validateServicePort is core validation's validateServicePort.
func validateServicePort(p *ServicePort, requireName bool, names map[string]bool, path string) ErrorList {
	var errs ErrorList
	switch {
	case requireName && p.Name == "":
		errs = append(errs, required(child(path, "name"), ""))
	case p.Name != "":
		for _, msg := range IsDNS1123Label(p.Name) {
			errs = append(errs, invalid(child(path, "name"), p.Name, msg))
		}
		if names[p.Name] {
			errs = append(errs, duplicate(child(path, "name"), p.Name))
		}
		names[p.Name] = true
	}
	for _, msg := range IsValidPortNum(int(p.Port)) {
		errs = append(errs, invalid(child(path, "port"), p.Port, msg))
	}
	errs = append(errs, validateProtocol(p.Protocol, child(path, "protocol"))...)
	errs = append(errs, validatePortNumOrName(p.TargetPort, child(path, "targetPort"))...)
	return errs
}

// validateProtocol checks a port's protocol: required, one of SCTP, TCP,
// UDP (sorted, as sets.List prints them upstream).
func validateProtocol(protocol, path string) ErrorList {
	switch protocol {
	case ProtocolTCP, ProtocolUDP, ProtocolSCTP:
		return nil
	case "":
		return ErrorList{required(path, "")}
	}
	return ErrorList{notSupported(path, protocol, ProtocolSCTP, ProtocolTCP, ProtocolUDP)}
}

// validatePortNumOrName is core validation's ValidatePortNumOrName: a
// number in 1-65535 or a valid IANA port name.
func validatePortNumOrName(port IntOrString, path string) ErrorList {
	var errs ErrorList
	if port.Type == String {
		for _, msg := range IsValidPortName(port.StrVal) {
			errs = append(errs, invalid(path, port.StrVal, msg))
		}
		return errs
	}
	for _, msg := range IsValidPortNum(int(port.IntVal)) {
		errs = append(errs, invalid(path, port.IntVal, msg))
	}
	return errs
}

// validateServiceUpdate is ValidateServiceUpdate's part for kubesim's
// fields: a clusterIP, once set, never changes. (The API server keeps the
// stored clusterIP when an update leaves it empty, as the Service
// strategy's patchAllocatedValues does, before validation.)
func validateServiceUpdate(old, new *Service) ErrorList {
	if old.Spec.ClusterIP == "" {
		return nil
	}
	return validateImmutable(old.Spec.ClusterIP, new.Spec.ClusterIP, "spec.clusterIP")
}

// The limits of an EndpointSlice (pkg/apis/discovery/validation).
const (
	maxEndpointsPerSliceAPI = 1000
	maxAddressesPerEndpoint = 100
	maxPortsPerSlice        = 20000
)

// The address types of EndpointSlices (discoveryv1.AddressType).
const (
	AddressTypeIPv6 = "IPv6"
	AddressTypeFQDN = "FQDN"
)

// ValidateEndpointSlice checks an EndpointSlice on create, after
// defaulting, as discovery validation's ValidateEndpointSlice
// (pkg/apis/discovery/validation/validation.go): a DNS-1123 subdomain name
// and a namespace; addressType required and one of FQDN, IPv4, IPv6; at
// most 1000 endpoints, each with 1 to 100 addresses of its address type
// and a valid nodeName when set; at most 20000 ports, with unique names
// (empty or a DNS-1123 label) and a supported protocol.
func ValidateEndpointSlice(s *EndpointSlice) ErrorList {
	errs := ValidateObjectMeta(&s.ObjectMeta, true, IsDNS1123Subdomain, "metadata")
	switch s.AddressType {
	case AddressTypeIPv4, AddressTypeIPv6, AddressTypeFQDN:
	case "":
		errs = append(errs, required("addressType", ""))
	default:
		errs = append(errs, notSupported("addressType", s.AddressType, AddressTypeFQDN, AddressTypeIPv4, AddressTypeIPv6))
	}
	errs = append(errs, validateEndpoints(s.Endpoints, s.AddressType, "endpoints")...)
	return append(errs, validateEndpointPorts(s.Ports, "ports")...)
}

func validateEndpoints(endpoints []Endpoint, addressType, path string) ErrorList {
	if len(endpoints) > maxEndpointsPerSliceAPI {
		return ErrorList{tooMany(path, len(endpoints), maxEndpointsPerSliceAPI)}
	}
	var errs ErrorList
	for i := range endpoints {
		e := &endpoints[i]
		p := index(path, i)
		addrPath := child(p, "addresses")
		switch {
		case len(e.Addresses) == 0:
			errs = append(errs, required(addrPath, "must contain at least 1 address"))
		case len(e.Addresses) > maxAddressesPerEndpoint:
			errs = append(errs, tooMany(addrPath, len(e.Addresses), maxAddressesPerEndpoint))
		}
		for j, a := range e.Addresses {
			errs = append(errs, validateEndpointAddress(a, addressType, index(addrPath, j))...)
		}
		if e.NodeName != "" {
			for _, msg := range IsDNS1123Subdomain(e.NodeName) {
				errs = append(errs, invalid(child(p, "nodeName"), e.NodeName, msg))
			}
		}
	}
	return errs
}

// validateEndpointAddress checks an address of a known address type
// (upstream leaves the others unchecked).
func validateEndpointAddress(a, addressType, path string) ErrorList {
	switch addressType {
	case AddressTypeIPv4:
		if ip, err := netip.ParseAddr(a); err != nil || !ip.Is4() {
			return ErrorList{invalid(path, a, "must be a valid IPv4 address")}
		}
	case AddressTypeIPv6:
		if ip, err := netip.ParseAddr(a); err != nil || !ip.Is6() || ip.Is4In6() {
			return ErrorList{invalid(path, a, "must be a valid IPv6 address")}
		}
	case AddressTypeFQDN:
		var errs ErrorList
		for _, msg := range IsDNS1123Subdomain(a) {
			errs = append(errs, invalid(path, a, msg))
		}
		return errs
	}
	return nil
}

func validateEndpointPorts(ports []EndpointPort, path string) ErrorList {
	if len(ports) > maxPortsPerSlice {
		return ErrorList{tooMany(path, len(ports), maxPortsPerSlice)}
	}
	var errs ErrorList
	names := map[string]bool{}
	for i := range ports {
		p := &ports[i]
		ip := index(path, i)
		name := Deref(p.Name, "")
		if name != "" {
			for _, msg := range IsDNS1123Label(name) {
				errs = append(errs, invalid(child(ip, "name"), name, msg))
			}
		}
		if names[name] {
			errs = append(errs, duplicate(child(ip, "name"), name))
		}
		names[name] = true
		if p.Protocol == nil {
			errs = append(errs, required(child(ip, "protocol"), ""))
		} else {
			errs = append(errs, validateProtocol(*p.Protocol, child(ip, "protocol"))...)
		}
	}
	return errs
}
