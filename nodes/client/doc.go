// Package client is kubesim's client side of the API server, modelled on
// client-go: a typed client with a client-side load balancer over API server
// replicas (Client, ResourceClient), watch streams (Watcher), errors typed
// like k8s.io/apimachinery/pkg/api/errors (IsConflict, IsNotFound, ...), and
// retry.RetryOnConflict with client-go's DefaultRetry and DefaultBackoff.
//
// The informer machinery is in nodes/client/cache, the rate-limited work
// queue in nodes/client/workqueue and Lease-based leader election in
// nodes/client/leaderelection.
//
// Everything is an actor: a call takes a callback that runs later, from a
// delivered message or a fired timer, on the host's incarnation that made the
// call (after a crash it never runs). Nothing blocks.
//
// # Requests and the load balancer
//
// Config.Servers lists the API server replicas. The client starts at one
// drawn from its host's seeded stream and stays there until its connection
// dies, a call to it times out (Config.Timeout), or it answers 503
// ServiceUnavailable; the next call then goes to
// the next replica in the list. A failed call is not retried by the client,
// except that, like client-go, it sends a request again when the answer
// carries a Retry-After (a watch cache's 429 while it initializes), up to
// MaxRetries times: callers decide, usually through RetryOnConflict, a
// workqueue or a reflector's backoff.
//
// # Connections
//
// A client holds one connection per replica (connTo), as client-go's
// HTTP/2 transport multiplexes every request and watch to one server on one
// TCP connection. client-go puts no timeout on a request (rest.Config.Timeout
// 0; Config.Timeout sets one, as a leader-election or kubelet heartbeat
// client does). A request is retransmitted with TCP's doubling timeout
// until answered (a lossy link delays it, never loses it), and the API
// server serves its copies once. A dead server is found by the connection's
// HTTP/2 health check (k8s.io/apimachinery/pkg/util/net/http.go
// configureHTTP2Transport): after DefaultReadIdleTimeout (30 s) without a
// frame read the client sends a PING, and when no acknowledgement comes
// within DefaultPingTimeout (15 s) it closes the connection: every call on
// it fails with ErrConnectionLost, every watch on it ends with
// ErrWatchIdle (wrapping ErrConnectionLost), and the balancer moves on. A server whose host restarted
// resets the connection at its next segment (ErrConnectionReset). A call
// that fails that way has an unknown outcome (IsUnknownOutcome).
//
// # Tracing
//
// With Config.Tracing on, every single-object call (create, get, update,
// update-status, patch, delete, bind) emits apitrace.Call when it is sent and
// apitrace.Return when it ends, with the workload value read by
// Config.ValueOf, so that checks can build linearizability histories. Lists
// and watches are not traced as calls: reflectors trace them as
// apitrace.Relist and apitrace.InformerEvent.
package client
