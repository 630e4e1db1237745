package apiserver

import (
	"fmt"

	"github.com/kubesim/kubesim/trace/apiwire"
)

// statusOK is a plain 200.
var statusOK = apiwire.Status{Code: 200}

// errStatus builds a failed Status.
func errStatus(code int, reason apiwire.StatusReason, format string, args ...any) *apiwire.Status {
	return &apiwire.Status{Code: code, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// qualified is "pods" or "replicasets.apps": the resource as Kubernetes
// names it in messages.
func qualified(res resourceInfo) string {
	if res.Group == "" {
		return res.Name
	}
	return res.Name + "." + res.Group
}

// notFound is 404: `pods "x" not found`.
func notFound(res resourceInfo, name string) *apiwire.Status {
	return errStatus(404, apiwire.ReasonNotFound, "%s %q not found", qualified(res), name)
}

// alreadyExists is 409 AlreadyExists: `pods "x" already exists`.
func alreadyExists(res resourceInfo, name string) *apiwire.Status {
	return errStatus(409, apiwire.ReasonAlreadyExists, "%s %q already exists", qualified(res), name)
}

// conflict is 409 Conflict: the optimistic-concurrency failure.
func conflict(res resourceInfo, name string) *apiwire.Status {
	return errStatus(409, apiwire.ReasonConflict,
		"Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again",
		qualified(res), name)
}

// invalid is 422: `Pod "x" is invalid: [errors]`.
func invalid(res resourceInfo, name string, errs error) *apiwire.Status {
	return errStatus(422, apiwire.ReasonInvalid, "%s %q is invalid: %s", res.Kind, name, errs.Error())
}

// badRequest is 400.
func badRequest(format string, args ...any) *apiwire.Status {
	return errStatus(400, apiwire.ReasonBadRequest, format, args...)
}

// internalError is 500.
func internalError(err error) *apiwire.Status {
	return errStatus(500, apiwire.ReasonInternalError, "Internal error occurred: %v", err)
}

// tooLargeRV is 504: the cache did not catch up with the asked revision.
func tooLargeRV(rv int64) *apiwire.Status {
	return errStatus(504, apiwire.ReasonTimeout, "Too large resource version: %d, current: unknown", rv)
}

// gone is 410 Expired.
func gone(format string, args ...any) *apiwire.Status {
	return errStatus(410, apiwire.ReasonGone, format, args...)
}
