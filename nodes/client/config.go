package client

import (
	"cmp"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Defaults of Config.
const (
	// DefaultTimeout is Config.Timeout's default: none. rest.Config.Timeout
	// defaults to 0 (k8s.io/client-go/rest/config.go: "Zero means no
	// timeout"), so a client-go request waits as long as its connection
	// lives; the connection's health check (DefaultReadIdleTimeout,
	// DefaultPingTimeout) is what ends a request to a dead server.
	DefaultTimeout time.Duration = 0
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
	// Timeout, when positive, bounds every request, as rest.Config.Timeout:
	// a request unanswered by then fails with ErrNoAnswer (its connection
	// lives on). Default none (DefaultTimeout); the real exceptions set it
	// (a leader-election client, the kubelet's heartbeat client).
	Timeout time.Duration
	// ReadIdleTimeout and PingTimeout tune the connections' health check;
	// default DefaultReadIdleTimeout and DefaultPingTimeout (client-go's
	// HTTP2_READ_IDLE_TIMEOUT_SECONDS and HTTP2_PING_TIMEOUT_SECONDS).
	ReadIdleTimeout time.Duration
	PingTimeout     time.Duration
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
	// OnWrite, when set, is called with every write request (create,
	// update, update-status, patch, delete, bind) as it leaves, so that a
	// component can trace what it writes (a leader's spoketrace.LeaderWrite).
	OnWrite func(req *apiwire.Request)
}

// DefaultValueOf returns the object's "kubesim.io/value" annotation.
func DefaultValueOf(obj model.Object) string {
	if obj == nil {
		return ""
	}
	return obj.GetObjectMeta().Annotations[ValueAnnotation]
}

func (cfg Config) withDefaults(h *sim.Host) Config {
	cfg.Name = defaults.HostName(cfg.Name, h)
	if cfg.Timeout < 0 {
		cfg.Timeout = DefaultTimeout
	}
	defaults.Positive(&cfg.ReadIdleTimeout, DefaultReadIdleTimeout)
	defaults.Positive(&cfg.PingTimeout, DefaultPingTimeout)
	cfg.ReplyPort = cmp.Or(cfg.ReplyPort, DefaultReplyPort(cfg.Name))
	cfg.WatchPort = cmp.Or(cfg.WatchPort, "api-watch:"+cfg.Name)
	if cfg.ValueOf == nil {
		cfg.ValueOf = DefaultValueOf
	}
	return cfg
}

// DefaultReplyPort is the port where a client named name receives its RPC
// replies, unless its Config says otherwise.
func DefaultReplyPort(name string) string { return "api-reply:" + name }

// ForProcess gives the client of a component's gen-th process (counted
// from 1 on its host incarnation) ports of its own: a restarted process's
// replies and watch events go to new ports, so that those meant for the
// process before it never reach it. The first process keeps the default
// ports.
func (cfg Config) ForProcess(gen int) Config {
	if gen > 1 {
		suffix := "#" + strconv.Itoa(gen)
		cfg.ReplyPort = DefaultReplyPort(cfg.Name) + suffix
		cfg.WatchPort = "api-watch:" + cfg.Name + suffix
	}
	return cfg
}
