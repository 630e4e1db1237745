package client

import (
	"errors"
	"fmt"

	"github.com/kubesim/kubesim/trace/apiwire"
)

// StatusError is a call the API server answered with a non-2xx status, as
// apierrors.StatusError.
type StatusError struct {
	Status apiwire.Status
	// Server names the replica that answered.
	Server string
}

// Error prints the status as client-go does: its message, or its reason.
func (e *StatusError) Error() string {
	if e.Status.Message != "" {
		return e.Status.Message
	}
	return fmt.Sprintf("%s (%d)", e.Status.Reason, e.Status.Code)
}

// NewStatusError wraps a non-2xx status.
func NewStatusError(s apiwire.Status, server string) *StatusError {
	return &StatusError{Status: s, Server: server}
}

// ErrNoAnswer is the error of a call that got no answer before the client's
// Config.Timeout: the server may be down or unreachable, or merely slow.
// The outcome is unknown.
var ErrNoAnswer = errors.New("client: no answer from the API server (timeout)")

// ErrConnectionLost is the error of a call in flight on a connection that
// failed its health check (nothing read for ReadIdleTimeout, then no PING
// acknowledgement within PingTimeout), as golang.org/x/net/http2's
// closeForLostPing fails every stream with "client connection lost". The
// outcome is unknown; IsNoAnswer is true for it.
var ErrConnectionLost = errors.New("client: http2: client connection lost")

// ErrConnectionReset is the error of a call on a connection that the API
// server's restarted host reset: "connection reset by peer". The outcome
// is unknown (the server's previous incarnation may have applied it);
// IsNoAnswer is true for it.
var ErrConnectionReset = errors.New("client: connection reset by peer")

// ErrNoServers is the error of a call made by a client configured with no
// API servers.
var ErrNoServers = errors.New("client: no API servers configured")

// Watch stream failures, delivered to a watch handler; a reflector resumes
// after them.
var (
	// ErrWatchBroken: the stream lost a message (a gap in its Seq), as a
	// dropped connection would lose it.
	ErrWatchBroken = errors.New("client: watch stream broken (lost message)")
	// ErrWatchIdle: the stream's connection died: it failed its health
	// check or was reset. The error wraps ErrConnectionLost or
	// ErrConnectionReset, which client-go's watch stream tells apart: a
	// reset ("connection reset by peer", net.IsProbableEOF) closes the
	// result channel, and a reflector resumes; a lost connection ("http2:
	// client connection lost") is an ERROR event, and a reflector relists
	// (see nodes/client/cache). The name is historical (a silent-stream
	// timer once stood in for the health check).
	ErrWatchIdle = errors.New("client: watch stream's connection lost")
	// ErrWatchClosed: the server ended the stream cleanly (the end of the
	// watch response, apiwire.Closed), as client-go's result channel
	// closes when the API server stops a watch.
	ErrWatchClosed = errors.New("client: watch stream closed by the server")
)

// StatusOf returns the API server's status carried by err (a StatusError),
// and false for any other error.
func StatusOf(err error) (apiwire.Status, bool) {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status, true
	}
	return apiwire.Status{}, false
}

// ReasonForError returns err's status reason, or "" when it carries none.
func ReasonForError(err error) apiwire.StatusReason {
	s, _ := StatusOf(err)
	return s.Reason
}

// is matches a reason, or, for a status without a known reason, the code
// (as apierrors does).
func is(err error, reason apiwire.StatusReason, code int) bool {
	s, ok := StatusOf(err)
	if !ok {
		return false
	}
	if s.Reason != "" {
		return s.Reason == reason
	}
	return code != 0 && s.Code == code
}

// IsConflict reports a 409 Conflict: a stale resourceVersion.
func IsConflict(err error) bool { return is(err, apiwire.ReasonConflict, 409) }

// IsNotFound reports a 404 NotFound.
func IsNotFound(err error) bool { return is(err, apiwire.ReasonNotFound, 404) }

// IsAlreadyExists reports a 409 AlreadyExists from create.
func IsAlreadyExists(err error) bool { return is(err, apiwire.ReasonAlreadyExists, 0) }

// IsGone reports a 410 Gone: the resourceVersion asked for is too old
// (apierrors.IsGone or IsResourceExpired; the reason is "Expired").
func IsGone(err error) bool { return is(err, apiwire.ReasonGone, 410) }

// IsResourceExpired is IsGone under apimachinery's other name.
func IsResourceExpired(err error) bool { return IsGone(err) }

// IsForbidden reports a 403 Forbidden, as apierrors.IsForbidden: the
// authorization policy or an admission plugin (NodeRestriction) refused
// the request, which the API server traced as apitrace.Forbidden. StatusOf
// gives the status, whose message is the real API server's (`pods "x"
// is forbidden: User "u" cannot delete resource "pods" ...`).
func IsForbidden(err error) bool { return is(err, apiwire.ReasonForbidden, 403) }

// IsUnauthorized reports a 401 Unauthorized.
func IsUnauthorized(err error) bool { return is(err, apiwire.ReasonUnauthorized, 401) }

// IsInvalid reports a 422 Invalid (validation failed).
func IsInvalid(err error) bool { return is(err, apiwire.ReasonInvalid, 422) }

// IsTimeout reports a 504 Timeout: the server gave up waiting for etcd; the
// outcome is unknown.
func IsTimeout(err error) bool { return is(err, apiwire.ReasonTimeout, 504) }

// IsServerTimeout reports a 500 ServerTimeout.
func IsServerTimeout(err error) bool { return is(err, apiwire.ReasonServerTimeout, 0) }

// IsServiceUnavailable reports a 503 ServiceUnavailable: the server did not
// handle the request.
func IsServiceUnavailable(err error) bool { return is(err, apiwire.ReasonServiceUnavailable, 503) }

// IsTooManyRequests reports a 429 TooManyRequests.
func IsTooManyRequests(err error) bool { return is(err, apiwire.ReasonTooManyRequests, 429) }

// IsInternalError reports a 500 InternalError.
func IsInternalError(err error) bool { return is(err, apiwire.ReasonInternalError, 500) }

// IsNoAnswer reports a call that got no answer at all: ErrNoAnswer, or its
// connection died under it (ErrConnectionLost, ErrConnectionReset).
func IsNoAnswer(err error) bool {
	return errors.Is(err, ErrNoAnswer) || errors.Is(err, ErrConnectionLost) || errors.Is(err, ErrConnectionReset)
}

// IsUnknownOutcome reports whether a failed write may nevertheless have
// taken effect: no answer came (ErrNoAnswer), or the server answered 504
// Timeout or 500 (it lost track of etcd's answer). Every other answer is a
// definite refusal.
func IsUnknownOutcome(err error) bool {
	return IsNoAnswer(err) || IsTimeout(err) || IsServerTimeout(err) || IsInternalError(err)
}
