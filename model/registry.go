package model

// The kinds kubesim stores.
const (
	KindPod        = "Pod"
	KindNode       = "Node"
	KindReplicaSet = "ReplicaSet"
	KindDeployment = "Deployment"
	KindLease      = "Lease"
	// KindService and KindEndpointSlice are the Service rotation's.
	KindService       = "Service"
	KindEndpointSlice = "EndpointSlice"
)

// The resource names (the plural, lower-case path segment of the REST API
// and of the storage key) of the kinds.
const (
	ResourcePodsName        = "pods"
	ResourceNodesName       = "nodes"
	ResourceReplicaSetsName = "replicasets"
	ResourceDeploymentsName = "deployments"
	ResourceLeasesName      = "leases"
	// ResourceServicesName and ResourceEndpointSlicesName are the
	// Service rotation's.
	ResourceServicesName       = "services"
	ResourceEndpointSlicesName = "endpointslices"
)

// Resource describes one kind: its names, API group and version, scope, and
// a constructor for its Go type.
type Resource struct {
	// Kind is the CamelCase kind, e.g. "ReplicaSet".
	Kind string
	// Name is the plural resource name, e.g. "replicasets".
	Name string
	// Group is the API group, "" for the core group.
	Group string
	// Version is the API version within the group, e.g. "v1".
	Version string
	// Namespaced is false for cluster-scoped kinds (Node).
	Namespaced bool
	// New returns a new, empty object of the kind.
	New func() Object
	// NoUnconditionalUpdate is true for kinds whose registry strategy's
	// AllowUnconditionalUpdate is false (Lease: kubernetes
	// pkg/registry/coordination/lease/strategy.go): an update of such an
	// object must carry its resourceVersion.
	NoUnconditionalUpdate bool
	// Custom is the definition of a custom kind (NewRegistry), nil for the
	// built-in kinds. Its objects are *CustomObject values, stored under
	// /registry/<group>/<plural>/.
	Custom *CustomResourceDefinition
}

// APIVersion returns "group/version", or "version" for the core group.
func (r Resource) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// resources is the registry, in its fixed order.
var resources = []Resource{
	{Kind: KindPod, Name: ResourcePodsName, Version: "v1", Namespaced: true, New: func() Object { return &Pod{} }},
	{Kind: KindNode, Name: ResourceNodesName, Version: "v1", Namespaced: false, New: func() Object { return &Node{} }},
	{Kind: KindReplicaSet, Name: ResourceReplicaSetsName, Group: "apps", Version: "v1", Namespaced: true, New: func() Object { return &ReplicaSet{} }},
	{Kind: KindDeployment, Name: ResourceDeploymentsName, Group: "apps", Version: "v1", Namespaced: true, New: func() Object { return &Deployment{} }},
	{Kind: KindLease, Name: ResourceLeasesName, Group: "coordination.k8s.io", Version: "v1", Namespaced: true, New: func() Object { return &Lease{} },
		NoUnconditionalUpdate: true},
	{Kind: KindService, Name: ResourceServicesName, Version: "v1", Namespaced: true, New: func() Object { return &Service{} }},
	{Kind: KindEndpointSlice, Name: ResourceEndpointSlicesName, Group: "discovery.k8s.io", Version: "v1", Namespaced: true,
		New: func() Object { return &EndpointSlice{} }},
}

// Resources returns every kind's descriptor in a fixed order: pods, nodes,
// replicasets, deployments, leases, services, endpointslices. The slice is
// a copy.
func Resources() []Resource { return append([]Resource(nil), resources...) }

// ResourceForKind returns the descriptor of the built-in kind ("Pod"): a
// nil *Registry's ForKind.
func ResourceForKind(kind string) (Resource, bool) { return (*Registry)(nil).ForKind(kind) }

// ResourceForName returns the descriptor of the built-in resource name
// ("pods"): a nil *Registry's ForName.
func ResourceForName(name string) (Resource, bool) { return (*Registry)(nil).ForName(name) }

// findResource returns the first descriptor in rs that match accepts.
func findResource(rs []Resource, match func(*Resource) bool) (Resource, bool) {
	for i := range rs {
		if match(&rs[i]) {
			return rs[i], true
		}
	}
	return Resource{}, false
}

// ResourceOf returns the descriptor of obj's built-in kind; it panics for a
// type not in the built-in registry, which is a programming error (a
// *CustomObject's descriptor is in the Registry it was registered with).
func ResourceOf(obj Object) Resource {
	r, ok := ResourceForKind(obj.Kind())
	if !ok {
		panic("model: unregistered kind " + obj.Kind())
	}
	return r
}
