package model

import (
	"maps"
	"slices"
)

// Service is a stable virtual IP in front of the pods its selector
// matches, as corev1.Service of type ClusterIP (core group, resource
// "services", namespaced). The API server allocates spec.clusterIP from
// the service CIDR; the EndpointSlice controller lists the matching pods
// in EndpointSlices, and kube-proxy on every node routes the IP's traffic
// to the ready ones.
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       ServiceSpec `json:"spec"`
}

// ServiceSpec is what a Service's owner asks for, as corev1.ServiceSpec
// (ClusterIP services only).
type ServiceSpec struct {
	// Selector picks the backend pods by label; a Service without one has
	// no endpoints managed for it.
	Selector map[string]string `json:"selector,omitempty"`
	// Ports the Service exposes.
	Ports []ServicePort `json:"ports,omitempty"`
	// ClusterIP is the virtual IP, allocated by the API server when empty;
	// ClusterIPNone makes a headless Service, which has none.
	ClusterIP string `json:"clusterIP,omitempty"`
	// Type is "ClusterIP", the default and the only type kubesim models.
	Type string `json:"type,omitempty"`
	// InternalTrafficPolicy is how kube-proxy routes traffic to the
	// cluster IP from inside the cluster (KEP-2086): "Cluster", to every
	// usable endpoint, or "Local", to those on the sending node alone.
	// Unset means Cluster: the real API server defaults it to Cluster
	// (SetDefaults_Service, pkg/apis/core/v1/defaults.go); kubesim leaves
	// it unset, so that a Service that does not ask for Local is stored
	// as it was before the field existed.
	InternalTrafficPolicy string `json:"internalTrafficPolicy,omitempty"`
}

// ServicePort is one port of a Service, as corev1.ServicePort.
type ServicePort struct {
	Name     string `json:"name,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Port     int32  `json:"port"`
	// TargetPort is the pods' port; it defaults to Port.
	TargetPort IntOrString `json:"targetPort,omitempty"`
}

// ServiceTypeClusterIP is the Service type kubesim models.
const ServiceTypeClusterIP = "ClusterIP"

// ClusterIPNone is the clusterIP of a headless Service (corev1.ClusterIPNone):
// no virtual IP, so kube-proxy programs nothing for it and clients reach
// its pods by their own addresses.
const ClusterIPNone = "None"

// The internal traffic policies of a Service (corev1.ServiceInternalTrafficPolicy).
const (
	ServiceTrafficPolicyCluster = "Cluster"
	ServiceTrafficPolicyLocal   = "Local"
)

// The port protocols, as corev1.Protocol; TCP is the default.
const (
	ProtocolTCP  = "TCP"
	ProtocolUDP  = "UDP"
	ProtocolSCTP = "SCTP"
)

// Kind returns KindService.
func (s *Service) Kind() string { return KindService }

// DeepCopyObject returns s.DeepCopy() as an Object.
func (s *Service) DeepCopyObject() Object { return s.DeepCopy() }

// DeepCopyInto copies s into out, sharing no memory.
func (s *Service) DeepCopyInto(out *Service) { *out = *s.DeepCopy() }

// DeepCopy returns a copy of s that shares no memory with it.
func (s *Service) DeepCopy() *Service { return deepCopy(s) }

// copyRefsInto copies s's references into its shallow copy out (deepCopy).
func (s *Service) copyRefsInto(out *Service) {
	out.Spec.Selector = maps.Clone(s.Spec.Selector)
	out.Spec.Ports = slices.Clone(s.Spec.Ports)
}
