package model

import "slices"

// EndpointSlice lists some of a Service's backends, as
// discoveryv1.EndpointSlice (group "discovery.k8s.io", resource
// "endpointslices", namespaced). The EndpointSlice controller keeps them:
// at most MaxEndpointsPerSlice endpoints each, labelled with the Service's
// name (LabelServiceName) and the controller's (LabelManagedBy), and
// controlled by the Service.
type EndpointSlice struct {
	TypeMeta    `json:",inline"`
	ObjectMeta  `json:"metadata"`
	AddressType string         `json:"addressType"`
	Endpoints   []Endpoint     `json:"endpoints"`
	Ports       []EndpointPort `json:"ports,omitempty"`
}

// Endpoint is one backend, as discoveryv1.Endpoint: a pod's address, its
// conditions, and where it runs.
type Endpoint struct {
	Addresses  []string           `json:"addresses"`
	Conditions EndpointConditions `json:"conditions"`
	// NodeName is the node the pod runs on.
	NodeName string `json:"nodeName,omitempty"`
	// TargetRef names the pod.
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointConditions are a backend's state, as
// discoveryv1.EndpointConditions. Ready: the pod is ready and not
// terminating. Serving: the pod is ready, terminating or not. Terminating:
// the pod is being deleted.
type EndpointConditions struct {
	Ready       *bool `json:"ready,omitempty"`
	Serving     *bool `json:"serving,omitempty"`
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointPort is a port of the backends, as discoveryv1.EndpointPort.
type EndpointPort struct {
	Name     *string `json:"name,omitempty"`
	Protocol *string `json:"protocol,omitempty"`
	Port     *int32  `json:"port,omitempty"`
}

// ObjectReference names an object, as corev1.ObjectReference.
type ObjectReference struct {
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	UID       UID    `json:"uid,omitempty"`
}

// The EndpointSlice controller's constants (k8s.io/api discovery/v1
// well_known_labels.go; pkg/controller/endpointslice).
const (
	// LabelServiceName labels a slice with its Service's name.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy labels a slice with the controller that manages it.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// ManagedByEndpointSliceController is the EndpointSlice controller's
	// LabelManagedBy value.
	ManagedByEndpointSliceController = "endpointslice-controller.k8s.io"
	// MaxEndpointsPerSlice is kube-controller-manager's
	// --max-endpoints-per-slice default.
	MaxEndpointsPerSlice = 100
	// AddressTypeIPv4 is the only address type kubesim models.
	AddressTypeIPv4 = "IPv4"
)

// The labels that keep a Service or slice out of kube-proxy's informers
// (k8s.io/api core/v1 well_known_labels.go; pkg/proxy StartInformers'
// selector): a Service, or its slices, labelled with another proxy's
// name, and the slices of a headless Service (the EndpointSlice
// controller's setEndpointSliceLabels).
const (
	LabelServiceProxyName = "service.kubernetes.io/service-proxy-name"
	LabelHeadless         = "service.kubernetes.io/headless"
)

// Kind returns KindEndpointSlice.
func (s *EndpointSlice) Kind() string { return KindEndpointSlice }

// DeepCopyObject returns s.DeepCopy() as an Object.
func (s *EndpointSlice) DeepCopyObject() Object { return s.DeepCopy() }

// DeepCopyInto copies s into out, sharing no memory.
func (s *EndpointSlice) DeepCopyInto(out *EndpointSlice) { *out = *s.DeepCopy() }

// DeepCopy returns a copy of s that shares no memory with it.
func (s *EndpointSlice) DeepCopy() *EndpointSlice { return deepCopy(s) }

// copyRefsInto copies s's references into its shallow copy out (deepCopy).
func (s *EndpointSlice) copyRefsInto(out *EndpointSlice) {
	out.Endpoints = cloneEach(s.Endpoints, func(e, out *Endpoint) {
		*out = Endpoint{Addresses: slices.Clone(e.Addresses), NodeName: e.NodeName, TargetRef: clonePtr(e.TargetRef),
			Conditions: EndpointConditions{Ready: clonePtr(e.Conditions.Ready), Serving: clonePtr(e.Conditions.Serving),
				Terminating: clonePtr(e.Conditions.Terminating)}}
	})
	out.Ports = cloneEach(s.Ports, func(p, out *EndpointPort) {
		*out = EndpointPort{Name: clonePtr(p.Name), Protocol: clonePtr(p.Protocol), Port: clonePtr(p.Port)}
	})
}
