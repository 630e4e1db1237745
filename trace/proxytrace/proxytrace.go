// Package proxytrace defines the typed trace events of kube-proxy: what
// each node's routing table sends a Service's traffic to. It is the
// contract between nodes/kubeproxy (which emits these events) and the
// checks (which read only them), as spoketrace is for the other spokes.
//
// A check that follows the events of one node knows, at any time, the
// backends that node routes each Service port to: the table starts empty
// when the host boots (Flush with reason FlushBoot), each Rules event
// replaces one Service port's backends (or removes the port, Deleted), and
// a Flush empties the whole table. Nothing else changes it: a kube-proxy
// process restart keeps the table (the kernel's rules outlive the process)
// until the new process's first sync rewrites what changed.
//
// Every type implements sim.Data; its text form is what the trace hash
// covers. The trace tags of the fields define that form; zz_trace.go is
// generated from them.
package proxytrace

//go:generate go run github.com/kubesim/kubesim/internal/cmd/tracegen

// The states of a backend as the node's kube-proxy saw its endpoint
// (Backend.State).
const (
	// StateReady: the endpoint is ready; a Service port routes to its
	// ready endpoints whenever it has any.
	StateReady = "ready"
	// StateTerminating: the endpoint is serving and terminating, and the
	// Service port has no ready endpoint: the terminating-endpoints
	// fallback (KEP-1669) routes to it.
	StateTerminating = "terminating"
	// StateNotReady: the endpoint is neither ready nor a fallback; only the
	// kube-proxy-ignores-readiness ablation routes to it.
	StateNotReady = "not-ready"
)

// Reasons a node's table was emptied (Flush.Reason).
const (
	// FlushBoot: the host booted (first start or after a crash); its
	// table, kernel state, starts empty.
	FlushBoot = "boot"
	// FlushDisconnected: kube-proxy lost the API server and dropped every
	// rule; only the kube-proxy-flush-on-disconnect ablation does this.
	FlushDisconnected = "disconnected"
)

// Rules is emitted by a node's kube-proxy when a sync changes what one
// Service port routes to: its cluster IP, port or backends, or its removal
// (Deleted). A Service port with no backends has rules that reject its
// traffic (connection refused); a removed one has none (nothing answers).
//
//trace:kind KindRules kubeproxy.rules
type Rules struct {
	Node string `json:"node" trace:"node"`
	// Service is the Service's namespace/name.
	Service string `json:"service" trace:"service"`
	// PortName is the Service port's name ("" for an unnamed port).
	PortName  string `json:"port_name,omitempty" trace:"port_name,omitempty"`
	ClusterIP string `json:"cluster_ip" trace:"ip"`
	Port      int32  `json:"port" trace:"port"`
	Protocol  string `json:"protocol" trace:"proto"`
	// Deleted: the Service port has no rules any more.
	Deleted bool `json:"deleted,omitempty" trace:"deleted,flag"`
	// Backends are the endpoints the port routes to, sorted by address.
	Backends []Backend `json:"backends,omitempty" trace:""`
}

// Backend is one endpoint a Service port routes to. Its text form is
// pod:ns/name@ip:port/state.
//
//trace:item
type Backend struct {
	// Pod is the endpoint's target pod as namespace/name ("" without one).
	Pod string `json:"pod,omitempty" trace:"pod:"`
	// Addr is the endpoint's address and port, "ip:port".
	Addr string `json:"addr" trace:"@"`
	// State is how kube-proxy saw the endpoint: StateReady,
	// StateTerminating or StateNotReady.
	State string `json:"state" trace:"/"`
}

// Flush is emitted when a node's routing table is emptied at once: when
// its host boots (FlushBoot) or, under an ablation, when kube-proxy drops
// its rules (FlushDisconnected).
//
//trace:kind KindFlush kubeproxy.flush
type Flush struct {
	Node   string `json:"node" trace:"node"`
	Reason string `json:"reason" trace:"reason"`
}
