// Package apptrace defines the typed trace event of application traffic:
// one Request per request a simulated client made, at its end. It is the
// contract between nodes/apptraffic (which emits it) and the checks and
// metrics (which read only it), as proxytrace is for kube-proxy.
//
// A Request says what the user saw (Outcome, Latency), where the entry
// node's rules sent it when it was sent (Pod, Addr, and Routed: the state
// kube-proxy saw the endpoint in), and, when the pod's node answered, what
// that node knew of the pod when the request reached it (PodState,
// Ready). The request was sent at the event's time minus Latency.
//
// Every type implements sim.Data; its text form is what the trace hash
// covers. The trace tags of the fields define that form; zz_trace.go is
// generated from them.
package apptrace

//go:generate go run github.com/kubesim/kubesim/internal/cmd/tracegen

// The outcomes of a request (Request.Outcome).
const (
	// OutcomeOK: the application answered with a success within the
	// client's slow threshold.
	OutcomeOK = "ok"
	// OutcomeSlow: it answered with a success, later than the slow
	// threshold but within the timeout.
	OutcomeSlow = "slow"
	// OutcomeError: it answered with an error (it was warming up).
	OutcomeError = "error"
	// OutcomeRefused: the connection was refused or reset, or the request
	// could not be routed (Reason says which).
	OutcomeRefused = "refused"
	// OutcomeTimeout: no answer came within the client's timeout: a hung
	// or too busy application, or a dead, paused or cut-off node.
	OutcomeTimeout = "timeout"
)

// Why a request was refused before it reached a pod (Request.Reason); the
// pod's node gives the others, below.
const (
	// ReasonNoService: the entry node has no rules for the Service port
	// (the Service is unknown to it, or it runs no kube-proxy): as a name
	// that does not resolve.
	ReasonNoService = "no-service"
	// ReasonNoEndpoints: the rules of the Service port have no backend:
	// they reject the traffic (iptables REJECT, connection refused).
	ReasonNoEndpoints = "no-endpoints"
)

// Why the pod's node refused a request (Request.Reason), as the kubelet's
// network stack answers it.
const (
	// RefusedNoPod: no pod of the node has that IP.
	RefusedNoPod = "no-pod"
	// RefusedNotRunning: the pod's container is not running (still
	// creating, or exited).
	RefusedNotRunning = "not-running"
	// RefusedShutdown: the application got SIGTERM and no longer accepts
	// (after its kubelet.AnnotationServeAfterSigterm time, by default at once).
	RefusedShutdown = "shutting-down"
	// RefusedReset: the container stopped while it was answering: the
	// connection was reset.
	RefusedReset = "reset"
)

// Request is emitted by a client when one of its requests ended.
//
//trace:kind KindRequest app.request
type Request struct {
	// Client is the client's name; Service the Service's namespace/name
	// and PortName its port's name.
	Client   string `json:"client" trace:"client"`
	Service  string `json:"service" trace:"service"`
	PortName string `json:"port_name,omitempty" trace:"port_name,omitempty"`
	// Entry is the node whose rules routed the request: the client's own
	// for a client in the cluster, the node it entered through for one
	// outside it.
	Entry   string `json:"entry" trace:"entry"`
	Outcome string `json:"outcome" trace:"outcome"`
	Reason  string `json:"reason,omitempty" trace:"reason,omitempty"`
	// Latency is the time from sending to the outcome, in nanoseconds of
	// virtual time (the timeout for a timeout).
	Latency int64 `json:"latency_ns" trace:"latency-ns"`
	// Pod ("namespace/name", "" without a target pod) and Addr ("ip:port")
	// are the backend the rules picked; Routed is the state kube-proxy saw
	// its endpoint in (proxytrace.StateReady, StateTerminating for the
	// terminating fallback, StateNotReady). All are empty when no backend
	// was picked.
	Pod    string `json:"pod,omitempty" trace:"pod,omitempty"`
	Addr   string `json:"addr,omitempty" trace:"addr,omitempty"`
	Routed string `json:"routed,omitempty" trace:"routed,omitempty"`
	// PodState is the pod's state as its node saw it when the request
	// arrived (kubelet.PodRunning, PodTerminating, PodNotRunning,
	// PodAbsent), "" when no node answered; Ready is the readiness its
	// kubelet last reported then.
	PodState string `json:"pod_state,omitempty" trace:"pod-state,omitempty"`
	Ready    bool   `json:"ready,omitempty" trace:"ready,flag"`
}
