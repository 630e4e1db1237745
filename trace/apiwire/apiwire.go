// Package apiwire is the wire protocol between simulated API servers and
// their clients: the request and response of every verb, Status with its
// reasons, Preconditions, and the events of a watch stream, modelled on the
// Kubernetes REST API and apimachinery's Status objects. It is the contract
// between nodes/apiserver (which serves it) and the clients (nodes/client,
// the controllers, kubelets, schedulers and workloads, which speak it), and
// it sits below both, as apimachinery does in Kubernetes, so that no client
// depends on the server's package (TestClientsDoNotImportTheServer).
//
// A client sends a *Request as the body of a sim RPC to Port (the server
// accepts a Request value as well); the reply body is always a *Response.
// Watch events are one-way messages whose payload is a *WatchEvent.
//
// Objects travel as model.Object values. A sender hands over a deep copy and
// never touches it again; a receiver owns what it receives.
package apiwire

import (
	"github.com/kubesim/kubesim/model"
)

// Port is where an API server serves requests (sim RPC).
const Port = "api"

// Verb is a Kubernetes API verb.
type Verb string

// The verbs an API server serves.
const (
	VerbCreate       Verb = "create"
	VerbGet          Verb = "get"
	VerbList         Verb = "list"
	VerbUpdate       Verb = "update"
	VerbUpdateStatus Verb = "update-status" // the status subresource: PUT .../status
	VerbPatch        Verb = "patch"         // JSON merge patch (RFC 7386), retried on conflict inside the server
	VerbDelete       Verb = "delete"
	VerbBind         Verb = "bind" // the pods/binding subresource: sets spec.nodeName once
	VerbWatch        Verb = "watch"
	VerbCancelWatch  Verb = "cancel-watch"
)

// Request is one API call. User is the authenticated identity, as a client
// certificate or token would carry it: "system:kube-scheduler",
// "system:kube-controller-manager", "system:node:<node name>", "admin", or
// any other name (which has no roles).
type Request struct {
	User      string
	Verb      Verb
	Resource  string // plural resource name, e.g. "pods"
	Namespace string // "" for cluster-scoped resources and for all-namespace lists and watches
	Name      string

	// Object is the body of create, update and update-status.
	Object model.Object
	// Patch is the JSON merge patch of patch.
	Patch []byte
	// NodeName is the target of bind.
	NodeName string

	// ResourceVersion follows Kubernetes' rules. For get and list: "" is a
	// quorum read from etcd; "0" is served from the watch cache, however
	// stale; any other value means "not older than" and is served from the
	// cache once it has caught up to it. For watch: the revision to resume
	// after; "" or "0" start with the current state (synthetic ADDED events).
	ResourceVersion string
	// LabelSelector filters list and watch, in the string form
	// ("app=web,tier!=db").
	LabelSelector string
	// ResourceVersionMatch says how a list's ResourceVersion applies, as
	// metav1.ListOptions.ResourceVersionMatch: "" (the legacy rules above),
	// ResourceVersionMatchNotOlderThan or ResourceVersionMatchExact.
	ResourceVersionMatch string
	// Limit caps list results (0: no limit); Continue resumes a list.
	Limit    int64
	Continue string

	// Preconditions make delete (and update, through the object's
	// resourceVersion) conditional.
	Preconditions *Preconditions
	// GracePeriodSeconds for delete of a pod: nil uses the pod's
	// terminationGracePeriodSeconds; 0 deletes at once.
	GracePeriodSeconds *int64

	// Watch: the stream's events are sent as one-way messages of type
	// *WatchEvent to the caller's host, on WatchPort, tagged with WatchID.
	WatchPort           string
	WatchID             uint64
	AllowWatchBookmarks bool
}

// Preconditions must hold for a delete to proceed.
type Preconditions struct {
	UID             model.UID
	ResourceVersion string
}

// StatusReason is Kubernetes' machine-readable reason of a failed call.
type StatusReason string

// The reasons, with the HTTP codes the API server pairs them with.
const (
	ReasonBadRequest         StatusReason = "BadRequest"         // 400: unparsable resourceVersion, selector, continue token or patch; a body that does not match the request
	ReasonUnauthorized       StatusReason = "Unauthorized"       // 401
	ReasonForbidden          StatusReason = "Forbidden"          // 403
	ReasonNotFound           StatusReason = "NotFound"           // 404
	ReasonAlreadyExists      StatusReason = "AlreadyExists"      // 409
	ReasonConflict           StatusReason = "Conflict"           // 409
	ReasonGone               StatusReason = "Expired"            // 410: "too old resource version"
	ReasonInvalid            StatusReason = "Invalid"            // 422
	ReasonTooManyRequests    StatusReason = "TooManyRequests"    // 429
	ReasonInternalError      StatusReason = "InternalError"      // 500
	ReasonServerTimeout      StatusReason = "ServerTimeout"      // 500 with a retry hint: clients recognise it, kubesim's API server never sends it
	ReasonServiceUnavailable StatusReason = "ServiceUnavailable" // 503
	ReasonTimeout            StatusReason = "Timeout"            // 504: etcd did not answer in time; the outcome is unknown
)

// Status is the outcome of a call: Code 2xx on success.
type Status struct {
	Code    int
	Reason  StatusReason
	Message string
	// RetryAfterSeconds, when positive, is the Retry-After the answer
	// carries (metav1.StatusDetails.RetryAfterSeconds): the client may
	// send the request again after that many seconds.
	RetryAfterSeconds int
}

// OK reports a 2xx status.
func (s Status) OK() bool { return s.Code >= 200 && s.Code < 300 }

// Response answers a Request.
type Response struct {
	Status Status
	// Object is the result of create, get, update, update-status, patch,
	// delete (the object as deleted, or marked for deletion) and bind.
	Object model.Object
	// Items and ResourceVersion are the result of list: the list's
	// resourceVersion is the revision it reflects.
	Items           []model.Object
	ResourceVersion string
	Continue        string
	// Server names the replica that answered.
	Server string
}

// EventType is a watch event's type.
type EventType string

// The watch event types.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK" // only ResourceVersion is meaningful
	Error    EventType = "ERROR"    // Status says why; the stream ends (410 Gone: relist)
	// Closed is no Kubernetes event type: it stands for the end of the
	// watch response, a stream the server closed cleanly (as the cacher's
	// terminateAllWatchers does when its watch cache reinitializes). The
	// client resumes from the last resourceVersion it saw. Nothing follows.
	Closed EventType = "CLOSED"
)

// WatchEvent is one event of a watch stream. Seq numbers the stream's
// messages from 1, so that a receiver notices a lost message (the stream is
// then broken, as a dropped TCP connection would be).
type WatchEvent struct {
	WatchID         uint64
	Seq             uint64
	Type            EventType
	Object          model.Object
	ResourceVersion string
	Status          *Status
	Server          string
}

// The values of Request.ResourceVersionMatch (metav1.ResourceVersionMatch).
const (
	ResourceVersionMatchNotOlderThan = "NotOlderThan"
	ResourceVersionMatchExact        = "Exact"
)
