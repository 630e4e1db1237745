package client

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds every request (client-go has none; see the
	// package documentation for the choice).
	DefaultTimeout = 10 * time.Second
	// DefaultWatchIdleTimeout is how long a watch stream may stay silent (no
	// event, no bookmark) before the client presumes its server dead and
	// ends the stream. kube-apiserver sends watchers that allow bookmarks one
	// about every minute; this stands in for HTTP/2's connection health
	// check, which a simulated message stream does not have.
	DefaultWatchIdleTimeout = 90 * time.Second
	// ValueAnnotation is the annotation DefaultValueOf reads.
	ValueAnnotation = "kubesim.io/value"
)

// Config configures a Client.
type Config struct {
	// Name identifies the client in the trace; empty means the host's name.
	Name string
	// User is the identity sent in every request (apiwire.Request.User),
	// e.g. "system:kube-scheduler".
	User string
	// Servers are the API server replicas behind the client-side load
	// balancer.
	Servers []sim.HostID
	// Timeout bounds every request; default DefaultTimeout.
	Timeout time.Duration
	// WatchIdleTimeout ends a silent watch stream; default
	// DefaultWatchIdleTimeout.
	WatchIdleTimeout time.Duration
	// ReplyPort receives RPC replies; default "api-reply:" + Name.
	ReplyPort string
	// WatchPort receives watch events; default "api-watch:" + Name.
	// Two clients on one host need different names or ports.
	WatchPort string
	// Tracing emits apitrace.Call and apitrace.Return for single-object
	// calls.
	Tracing bool
	// ValueOf extracts the workload value of an object for the trace;
	// default DefaultValueOf.
	ValueOf func(model.Object) string
	// PatchValueOf, when set, extracts the workload value a merge patch
	// writes, for the trace of Patch (apitrace.Call.Value); default none.
	PatchValueOf func(patch []byte) string
}

// DefaultValueOf returns the object's "kubesim.io/value" annotation.
func DefaultValueOf(obj model.Object) string {
	if obj == nil {
		return ""
	}
	return obj.GetObjectMeta().Annotations[ValueAnnotation]
}

func (cfg Config) withDefaults(h *sim.Host) Config {
	if cfg.Name == "" {
		cfg.Name = h.Name()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.WatchIdleTimeout <= 0 {
		cfg.WatchIdleTimeout = DefaultWatchIdleTimeout
	}
	if cfg.ReplyPort == "" {
		cfg.ReplyPort = "api-reply:" + cfg.Name
	}
	if cfg.WatchPort == "" {
		cfg.WatchPort = "api-watch:" + cfg.Name
	}
	if cfg.ValueOf == nil {
		cfg.ValueOf = DefaultValueOf
	}
	return cfg
}
