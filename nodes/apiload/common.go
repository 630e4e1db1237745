package apiload

import (
	"cmp"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Defaults shared by the workloads.
const (
	// DefaultNamespace is where the workloads keep their objects.
	DefaultNamespace = "default"
	// DefaultUser is the identity of the well-behaved workloads.
	DefaultUser = apitrace.UserAdmin
	// DefaultThink is the mean pause between two operations of a client.
	DefaultThink = 100 * time.Millisecond
)

// WorkloadConfig is what the configuration of every read-write workload
// client (counter, CRUD, status and patch) starts with: who the client is,
// which replicas it talks to, where its objects are, and its pace.
type WorkloadConfig struct {
	// Name is the client's name in the trace; empty means the host's name.
	Name string
	// User is the identity; default "admin".
	User string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Namespace holds the workload's objects; default "default".
	Namespace string
	// Think is the mean pause between two operations; default 100 ms.
	Think time.Duration
	// Timeout bounds each request; default the client's.
	Timeout time.Duration
	// Until, when set, is the virtual time after which no operation starts.
	Until time.Duration
}

func (w WorkloadConfig) withDefaults() WorkloadConfig {
	w.User = cmp.Or(w.User, DefaultUser)
	w.Namespace = cmp.Or(w.Namespace, DefaultNamespace)
	defaults.Positive(&w.Think, DefaultThink)
	return w
}

// conflictRetry is a workload's backoff between RetryOnConflict attempts:
// b, or client.DefaultRetry when b has no steps.
func conflictRetry(b client.Backoff) client.Backoff {
	if b.Steps == 0 {
		return client.DefaultRetry
	}
	return b
}

// newClient makes the workload's client on h: cc, with tracing on and the
// workload's name, identity, replicas and request timeout.
func (w WorkloadConfig) newClient(h *sim.Host, cc client.Config) *client.Client {
	cc.Name, cc.User, cc.Servers, cc.Timeout, cc.Tracing = defaults.HostName(w.Name, h), w.User, w.Servers, w.Timeout, true
	return client.New(h, cc)
}

// think waits an exponentially distributed pause of mean d, then runs fn,
// unless the pause would end at or after until (when until is set).
func think(h *sim.Host, rng *sim.Stream, d, until time.Duration, name string, fn func()) {
	p := time.Duration(rng.ExpFloat64() * float64(d))
	if until > 0 && h.Now().Add(p) >= sim.Time(until) {
		return
	}
	h.After(p, name, fn)
}

// newLease returns a Lease carrying value in client.ValueAnnotation.
func newLease(namespace, name, value string) *model.Lease {
	return &model.Lease{ObjectMeta: model.ObjectMeta{Namespace: namespace, Name: name,
		Annotations: map[string]string{client.ValueAnnotation: value}}}
}

// newObject returns a Lease, or an object of the custom kind def when it is
// set, carrying value in client.ValueAnnotation.
func newObject(def *model.CustomResourceDefinition, namespace, name, value string) model.Object {
	if def == nil {
		return newLease(namespace, name, value)
	}
	o := model.NewCustomObject(*def, namespace, name)
	o.Annotations = map[string]string{client.ValueAnnotation: value}
	return o
}

// workloadResource is the client of leases, or of the custom kind def
// when it is set, in namespace.
func workloadResource(c *client.Client, def *model.CustomResourceDefinition, namespace string) *client.ResourceClient {
	if def == nil {
		return c.Leases(namespace)
	}
	return c.CustomResources(*def, namespace)
}

// setValue sets obj's workload value.
func setValue(obj model.Object, value string) {
	m := obj.GetObjectMeta()
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[client.ValueAnnotation] = value
}

// itoa is strconv.Itoa.
func itoa(i int) string { return strconv.Itoa(i) }

// conflictStatus is a 409 Conflict, for workloads that want a retry.
var conflictStatus = apiwire.Status{Code: 409, Reason: apiwire.ReasonConflict, Message: "apiload: object created, read it again"}
