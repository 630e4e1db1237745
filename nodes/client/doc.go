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
// drawn from its host's seeded stream and stays there until a call to it
// times out, or it answers 503 ServiceUnavailable; the next call then goes to
// the next replica in the list. A failed call is not retried by the client
// (like client-go, which retries only on a Retry-After header): callers
// decide, usually through RetryOnConflict, a workqueue or a reflector's
// backoff.
//
// client-go has no default request timeout; a simulated request needs one,
// so Config.Timeout defaults to DefaultTimeout (10 s). That is the timeout
// kube-controller-manager gives its leader-election client (its
// RenewDeadline), and it is longer than the API server's etcd request
// timeout (a few seconds), so a slow etcd normally comes back as a 504
// Timeout from the server rather than as silence. A call that gets no answer
// fails with an error for which IsUnknownOutcome is true.
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
