// Package apitrace defines the typed trace events of the Kubernetes API
// layer: calls made by clients and their results, what API servers admit
// and write to etcd, and what informers see. It is the contract between the
// API servers and client machinery (which emit these events) and the checks
// (which read only them).
//
// Every type implements sim.Data; its text form is what the trace hash
// covers. The trace tags of the fields define that form; zz_trace.go is
// generated from them.
package apitrace

//go:generate go run github.com/kubesim/kubesim/internal/cmd/tracegen

// The identities of kubesim's own API clients, as Call.User and Admit.User
// name them; the nodes that act under them and the measures that count their
// calls both read them here.
const (
	// UserAdmin is the identity of the well-behaved workloads.
	UserAdmin = "admin"
	// UserControllerManager is the real kube-controller-manager's identity
	// (kubeadm's kubeconfig for it, without --use-service-account-credentials).
	UserControllerManager = "system:kube-controller-manager"
)

// Call is emitted by a client when it makes an API call. Value is the
// workload's payload written by create/update/patch (a unique value, so
// that a read names the write it saw); Precondition is the resourceVersion
// an update or delete is conditional on ("" for none).
//
//trace:kind KindCall api.call
type Call struct {
	Client       string `json:"client" trace:"client"`
	Op           uint64 `json:"op" trace:"op"`
	User         string `json:"user" trace:"user"`
	Verb         string `json:"verb" trace:"verb"`
	Resource     string `json:"resource" trace:"resource"`
	Key          string `json:"key" trace:"key"` // namespace/name, or name for cluster-scoped resources
	RV           string `json:"rv,omitempty" trace:"rv,omitempty"`
	Value        string `json:"value,omitempty" trace:"value,omitempty"`
	Precondition string `json:"precondition,omitempty" trace:"if-rv,omitempty"`
}

// Return is emitted by a client when a call ends. Code is the HTTP status
// (0 when no answer came: the outcome is unknown). For reads and writes of
// one object, Found/Value/RV describe the object in the answer.
//
//trace:kind KindReturn api.return
type Return struct {
	Client string `json:"client" trace:"client"`
	Op     uint64 `json:"op" trace:"op"`
	Code   int    `json:"code" trace:"code"`
	Reason string `json:"reason,omitempty" trace:"reason,omitempty"`
	Found  bool   `json:"found,omitempty" trace:"-"`
	Value  string `json:"value,omitempty" trace:"value,if=Found"`
	RV     string `json:"rv,omitempty" trace:"rv,omitempty"`
	Server string `json:"server,omitempty" trace:"server,omitempty"`
}

// Admit is emitted by an API server when a write has passed
// authentication, authorization and admission and goes to etcd. NodeName is
// the node the written object is bound to or is (for pods and nodes), so
// that the access check can apply the node restriction independently.
//
//trace:kind KindAdmit api.admit
type Admit struct {
	Server    string `json:"server" trace:"server"`
	User      string `json:"user" trace:"user"`
	Verb      string `json:"verb" trace:"verb"`
	Resource  string `json:"resource" trace:"resource"`
	Key       string `json:"key" trace:"key"`
	NodeName  string `json:"node_name,omitempty" trace:"node,omitempty"`
	OldNode   string `json:"old_node,omitempty" trace:"old-node,omitempty"` // for updates: the node of the stored object
	Subresrc  string `json:"subresource,omitempty" trace:"sub,omitempty"`
	Namespace string `json:"namespace,omitempty" trace:"-"`
	Group     string `json:"group,omitempty" trace:"-"` // the API group, for the access check's policy
}

// Forbidden is emitted by an API server when it refuses a request with 403
// Forbidden: no authorizer allowed it (By "RBAC": neither the Node
// authorizer nor the policy's rules), or the NodeRestriction admission
// plugin refused a kubelet's write of a pod not bound to it (By
// "NodeRestriction"). It is traced on every attempt, so that a client
// retrying a refused call, such as an informer whose list is refused and
// which backs off and lists again as client-go's reflector does, shows in
// the trace. Verb is the request's (update-status, bind: the subresources
// status and binding); Name is the object's (for create, the new one's);
// Message is the status message the client gets.
//
//trace:kind KindForbidden api.forbidden
type Forbidden struct {
	Server    string `json:"server" trace:"server"`
	User      string `json:"user" trace:"user"`
	Verb      string `json:"verb" trace:"verb"`
	Group     string `json:"group,omitempty" trace:"group,omitempty"`
	Resource  string `json:"resource" trace:"resource"`
	Namespace string `json:"namespace,omitempty" trace:"ns,omitempty"`
	Name      string `json:"name,omitempty" trace:"name,omitempty"`
	By        string `json:"by" trace:"by"`
	Message   string `json:"message" trace:"-"`
}

// InformerEvent is emitted by an informer when its store changes: a watch
// event applied (add, update, delete) or an object replaced by a relist.
//
//trace:kind KindInformer informer.event
type InformerEvent struct {
	Informer string `json:"informer" trace:"informer"`
	Resource string `json:"resource" trace:"resource"`
	Type     string `json:"type" trace:"type"` // add, update, delete
	Key      string `json:"key" trace:"key"`
	RV       string `json:"rv" trace:"rv"`
	Value    string `json:"value,omitempty" trace:"value,omitempty"`
}

// Relist is emitted by a reflector when it lists: at start, after a 410
// Gone, or after an error. RV is the list's resourceVersion; Reason says why.
//
//trace:kind KindRelist informer.relist
type Relist struct {
	Informer string `json:"informer" trace:"informer"`
	Resource string `json:"resource" trace:"resource"`
	Reason   string `json:"reason" trace:"reason"`
	RV       string `json:"rv" trace:"rv"`
	Items    int    `json:"items" trace:"items"`
}

// Item is one object of a store snapshot: its key, resourceVersion and
// workload value. Its text form is key@rv.
//
//trace:item
type Item struct {
	Key   string `json:"key" trace:""`
	RV    string `json:"rv" trace:"@"`
	Value string `json:"value,omitempty" trace:"-"`
}

// Store is an informer's whole store, emitted when a scenario asks (at the
// end of a run), sorted by key.
//
//trace:kind KindStore informer.store
type Store struct {
	Informer string `json:"informer" trace:"informer"`
	Resource string `json:"resource" trace:"resource"`
	RV       string `json:"rv" trace:"rv"` // the last resourceVersion the informer saw
	Items    []Item `json:"items" trace:""`
}

// ServerState is the truth an informer store is compared with: a quorum
// list of a resource at the end of a run, emitted by whoever asks.
//
//trace:kind KindServerSet api.state
type ServerState struct {
	Resource string `json:"resource" trace:"resource"`
	RV       string `json:"rv" trace:"rv"`
	Items    []Item `json:"items" trace:""`
}

// Owners is emitted by an API server when etcd confirmed a write of a pod,
// ReplicaSet or Deployment that created it, marked it for deletion,
// removed it, or changed its ownerReferences or labels: the object and its
// owners before and after the write (ownerReferences as "Kind/uid", the
// controller's marked "*"), its labels after ("k=v,..."), and for a
// ReplicaSet or Deployment its selector. It is the ground truth of who
// owns what, for the ownership check.
//
//trace:kind KindOwners api.owners
type Owners struct {
	Server    string `json:"server" trace:"server"`
	Verb      string `json:"verb" trace:"verb"`
	Resource  string `json:"resource" trace:"resource"`
	Key       string `json:"key" trace:"key"`
	UID       string `json:"uid" trace:"uid"`
	OldOwners string `json:"old_owners,omitempty" trace:"old-owners,omitempty"`
	Owners    string `json:"owners,omitempty" trace:"owners,omitempty"`
	Labels    string `json:"labels,omitempty" trace:"labels,omitempty"`
	Selector  string `json:"selector,omitempty" trace:"selector,omitempty"`
	Deleting  bool   `json:"deleting,omitempty" trace:"deleting,omitempty"` // deletionTimestamp set
	Removed   bool   `json:"removed,omitempty" trace:"removed,omitempty"`   // gone from storage
}
