package apiwire

// Additions to the protocol made while writing the server.
//
// Message forms: a client sends a *Request as the body of a sim RPC to
// Port; the server accepts a Request value as well. The reply body is
// always a *Response. Watch events are one-way messages whose payload is a
// *WatchEvent.

// ReasonBadRequest (400) is Kubernetes' reason for a malformed request: an
// unparsable resourceVersion, label selector, continue token or patch, or
// an object whose name or namespace does not match the request's.
const ReasonBadRequest StatusReason = "BadRequest"
