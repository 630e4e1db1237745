// Package apitrace defines the typed trace events of the Kubernetes API
// layer: calls made by clients and their results, what API servers admit
// and write to etcd, and what informers see. It is the contract between the
// API servers and client machinery (which emit these events) and the checks
// (which read only them).
//
// Every type implements sim.Data; its text form is what the trace hash
// covers.
package apitrace

import (
	"github.com/kubesim/kubesim/sim"
)

// The trace kinds, as returned by TraceKind.
const (
	KindCall      = "api.call"
	KindReturn    = "api.return"
	KindAdmit     = "api.admit"
	KindInformer  = "informer.event"
	KindRelist    = "informer.relist"
	KindStore     = "informer.store"
	KindServerSet = "api.state"
)

// Call is emitted by a client when it makes an API call. Value is the
// workload's payload written by create/update/patch (a unique value, so
// that a read names the write it saw); Precondition is the resourceVersion
// an update or delete is conditional on ("" for none).
type Call struct {
	Client       string `json:"client"`
	Op           uint64 `json:"op"`
	User         string `json:"user"`
	Verb         string `json:"verb"`
	Resource     string `json:"resource"`
	Key          string `json:"key"` // namespace/name, or name for cluster-scoped resources
	RV           string `json:"rv,omitempty"`
	Value        string `json:"value,omitempty"`
	Precondition string `json:"precondition,omitempty"`
}

// TraceKind implements sim.Data.
func (e *Call) TraceKind() string { return KindCall }

// AppendText implements sim.Data.
func (e *Call) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "client", e.Client)
	b = sim.AppendUintField(b, "op", e.Op)
	b = sim.AppendField(b, "user", e.User)
	b = sim.AppendField(b, "verb", e.Verb)
	b = sim.AppendField(b, "resource", e.Resource)
	b = sim.AppendField(b, "key", e.Key)
	b = sim.AppendFieldOpt(b, "rv", e.RV)
	b = sim.AppendFieldOpt(b, "value", e.Value)
	return sim.TrimSpaceRight(sim.AppendFieldOpt(b, "if-rv", e.Precondition))
}

// Return is emitted by a client when a call ends. Code is the HTTP status
// (0 when no answer came: the outcome is unknown). For reads and writes of
// one object, Found/Value/RV describe the object in the answer.
type Return struct {
	Client string `json:"client"`
	Op     uint64 `json:"op"`
	Code   int    `json:"code"`
	Reason string `json:"reason,omitempty"`
	Found  bool   `json:"found,omitempty"`
	Value  string `json:"value,omitempty"`
	RV     string `json:"rv,omitempty"`
	Server string `json:"server,omitempty"`
}

// TraceKind implements sim.Data.
func (e *Return) TraceKind() string { return KindReturn }

// AppendText implements sim.Data.
func (e *Return) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "client", e.Client)
	b = sim.AppendUintField(b, "op", e.Op)
	b = sim.AppendUintField(b, "code", uint64(e.Code))
	b = sim.AppendFieldOpt(b, "reason", e.Reason)
	if e.Found {
		b = sim.AppendField(b, "value", e.Value)
	}
	b = sim.AppendFieldOpt(b, "rv", e.RV)
	return sim.TrimSpaceRight(sim.AppendFieldOpt(b, "server", e.Server))
}

// Admit is emitted by an API server when a write has passed
// authentication, authorization and admission and goes to etcd. NodeName is
// the node the written object is bound to or is (for pods and nodes), so
// that the access check can apply the node restriction independently.
type Admit struct {
	Server    string `json:"server"`
	User      string `json:"user"`
	Verb      string `json:"verb"`
	Resource  string `json:"resource"`
	Key       string `json:"key"`
	NodeName  string `json:"node_name,omitempty"`
	OldNode   string `json:"old_node,omitempty"` // for updates: the node of the stored object
	Subresrc  string `json:"subresource,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// TraceKind implements sim.Data.
func (e *Admit) TraceKind() string { return KindAdmit }

// AppendText implements sim.Data.
func (e *Admit) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "server", e.Server)
	b = sim.AppendField(b, "user", e.User)
	b = sim.AppendField(b, "verb", e.Verb)
	b = sim.AppendField(b, "resource", e.Resource)
	b = sim.AppendField(b, "key", e.Key)
	b = sim.AppendFieldOpt(b, "node", e.NodeName)
	b = sim.AppendFieldOpt(b, "old-node", e.OldNode)
	return sim.TrimSpaceRight(sim.AppendFieldOpt(b, "sub", e.Subresrc))
}

// InformerEvent is emitted by an informer when its store changes: a watch
// event applied (add, update, delete) or an object replaced by a relist.
type InformerEvent struct {
	Informer string `json:"informer"`
	Resource string `json:"resource"`
	Type     string `json:"type"` // add, update, delete
	Key      string `json:"key"`
	RV       string `json:"rv"`
	Value    string `json:"value,omitempty"`
}

// TraceKind implements sim.Data.
func (e *InformerEvent) TraceKind() string { return KindInformer }

// AppendText implements sim.Data.
func (e *InformerEvent) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "informer", e.Informer)
	b = sim.AppendField(b, "resource", e.Resource)
	b = sim.AppendField(b, "type", e.Type)
	b = sim.AppendField(b, "key", e.Key)
	b = sim.AppendField(b, "rv", e.RV)
	return sim.TrimSpaceRight(sim.AppendFieldOpt(b, "value", e.Value))
}

// Relist is emitted by a reflector when it lists: at start, after a 410
// Gone, or after an error. RV is the list's resourceVersion; Reason says why.
type Relist struct {
	Informer string `json:"informer"`
	Resource string `json:"resource"`
	Reason   string `json:"reason"`
	RV       string `json:"rv"`
	Items    int    `json:"items"`
}

// TraceKind implements sim.Data.
func (e *Relist) TraceKind() string { return KindRelist }

// AppendText implements sim.Data.
func (e *Relist) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "informer", e.Informer)
	b = sim.AppendField(b, "resource", e.Resource)
	b = sim.AppendField(b, "reason", e.Reason)
	b = sim.AppendField(b, "rv", e.RV)
	return sim.TrimSpaceRight(sim.AppendUintField(b, "items", uint64(e.Items)))
}

// Item is one object of a store snapshot: its key, resourceVersion and
// workload value.
type Item struct {
	Key   string `json:"key"`
	RV    string `json:"rv"`
	Value string `json:"value,omitempty"`
}

// Store is an informer's whole store, emitted when a scenario asks (at the
// end of a run), sorted by key.
type Store struct {
	Informer string `json:"informer"`
	Resource string `json:"resource"`
	RV       string `json:"rv"` // the last resourceVersion the informer saw
	Items    []Item `json:"items"`
}

// TraceKind implements sim.Data.
func (e *Store) TraceKind() string { return KindStore }

// AppendText implements sim.Data.
func (e *Store) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "informer", e.Informer)
	b = sim.AppendField(b, "resource", e.Resource)
	b = sim.AppendField(b, "rv", e.RV)
	for _, it := range e.Items {
		b = append(b, it.Key...)
		b = append(b, '@')
		b = append(b, it.RV...)
		b = append(b, ' ')
	}
	return sim.TrimSpaceRight(b)
}

// ServerState is the truth an informer store is compared with: a quorum
// list of a resource at the end of a run, emitted by whoever asks.
type ServerState struct {
	Resource string `json:"resource"`
	RV       string `json:"rv"`
	Items    []Item `json:"items"`
}

// TraceKind implements sim.Data.
func (e *ServerState) TraceKind() string { return KindServerSet }

// AppendText implements sim.Data.
func (e *ServerState) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "resource", e.Resource)
	b = sim.AppendField(b, "rv", e.RV)
	for _, it := range e.Items {
		b = append(b, it.Key...)
		b = append(b, '@')
		b = append(b, it.RV...)
		b = append(b, ' ')
	}
	return sim.TrimSpaceRight(b)
}
