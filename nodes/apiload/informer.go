package apiload

import (
	"cmp"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// InformerConfig configures an informer host: one informer per resource,
// on one client.
type InformerConfig struct {
	// Name is the client's name; each informer is "<Name>/<resource>".
	// Empty means the host's name.
	Name string
	// User is the identity; default "admin".
	User string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Resources are the plural resource names to inform on; default
	// leases.
	Resources []string
	// Namespace restricts the informers ("" for all namespaces).
	Namespace string
	// Ablations are the run's ablation switches, handed to every
	// reflector (cache.ReflectorConfig).
	Ablations ablation.Set
	// Timeout bounds each request; default the client's.
	Timeout time.Duration
	// EmitAt, when set, is the virtual time at which every informer emits
	// its store (apitrace.Store).
	EmitAt time.Duration
	// ValueOf, when set, is what the informers' trace events carry as an
	// object's value (client.Config.ValueOf); default the workload value.
	ValueOf func(model.Object) string
	// PageSize, when positive, pages the reflectors' lists
	// (cache.ReflectorConfig.PageSize, client-go's WatchListPageSize).
	PageSize int64
}

// InformersExposeName is the name under which an informer host exposes
// its []*cache.Informer.
const InformersExposeName = "apiload/informers"

// BootInformers returns the Boot function of an informer host.
func BootInformers(cfg InformerConfig) func(h *sim.Host) {
	cfg.User = cmp.Or(cfg.User, DefaultUser)
	if len(cfg.Resources) == 0 {
		cfg.Resources = []string{model.ResourceLeasesName}
	}
	return func(h *sim.Host) {
		c := client.New(h, client.Config{Name: defaults.HostName(cfg.Name, h), User: cfg.User, Servers: cfg.Servers,
			Timeout: cfg.Timeout, Tracing: true, ValueOf: cfg.ValueOf})
		var infs []*cache.Informer
		for _, res := range cfg.Resources {
			inf := cache.NewInformer(c, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{
				Resource: res, Namespace: cfg.Namespace, Ablations: cfg.Ablations, PageSize: cfg.PageSize}})
			inf.Run()
			infs = append(infs, inf)
		}
		h.Expose(InformersExposeName, infs)
		if at := sim.Time(cfg.EmitAt); cfg.EmitAt > 0 && h.Now() <= at {
			h.After(at.Sub(h.Now()), "apiload-emit-stores", func() {
				for _, inf := range infs {
					inf.EmitStore()
				}
			})
		}
	}
}

// StateReporterConfig configures the process that reports the API
// server's state.
type StateReporterConfig struct {
	// Name is the client's name; empty means the host's name.
	Name string
	// User is the identity; default "admin".
	User string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Resources to list; default leases.
	Resources []string
	// Namespace restricts the lists ("" for all namespaces), as it does
	// the informers compared with them.
	Namespace string
	// At is when to list. A list that fails is retried every RetryEvery
	// (default 1 s).
	At, RetryEvery time.Duration
	// Timeout bounds each request; default the client's.
	Timeout time.Duration
	// ValueOf, when set, is what the items carry as an object's value;
	// default the workload value (client.DefaultValueOf).
	ValueOf func(model.Object) string
}

// BootStateReporter returns the Boot function of a host that, at cfg.At,
// does a quorum list (resourceVersion "") of each resource and emits it as
// apitrace.ServerState: the items sorted by key, each with its
// resourceVersion and workload value (client.DefaultValueOf), and the
// list's resourceVersion.
func BootStateReporter(cfg StateReporterConfig) func(h *sim.Host) {
	cfg.User = cmp.Or(cfg.User, DefaultUser)
	if len(cfg.Resources) == 0 {
		cfg.Resources = []string{model.ResourceLeasesName}
	}
	if cfg.RetryEvery <= 0 {
		cfg.RetryEvery = time.Second
	}
	if cfg.ValueOf == nil {
		cfg.ValueOf = client.DefaultValueOf
	}
	return func(h *sim.Host) {
		c := client.New(h, client.Config{Name: defaults.HostName(cfg.Name, h), User: cfg.User, Servers: cfg.Servers, Timeout: cfg.Timeout})
		at := sim.Time(cfg.At)
		if h.Now() > at {
			return
		}
		h.After(at.Sub(h.Now()), "apiload-state", func() {
			for _, res := range cfg.Resources {
				reportState(h, c.Resource(res, cfg.Namespace), cfg.RetryEvery, cfg.ValueOf)
			}
		})
	}
}

// reportState lists r from etcd and emits the result, retrying until a
// list succeeds.
func reportState(h *sim.Host, r *client.ResourceClient, retry time.Duration, valueOf func(model.Object) string) {
	r.List(client.ListOptions{}, func(l *client.ObjectList, err error) {
		if err != nil {
			h.After(retry, "apiload-state-retry", func() { reportState(h, r, retry, valueOf) })
			return
		}
		h.Emit(ServerStateOf(r.ResourceName(), l, valueOf))
	})
}

// ServerState turns a list into apitrace.ServerState, sorted by key, with
// the workload values (client.DefaultValueOf).
func ServerState(resource string, l *client.ObjectList) *apitrace.ServerState {
	return ServerStateOf(resource, l, client.DefaultValueOf)
}

// ServerStateOf is ServerState with the values valueOf gives.
func ServerStateOf(resource string, l *client.ObjectList, valueOf func(model.Object) string) *apitrace.ServerState {
	st := cache.NewStore()
	for _, obj := range l.Items {
		st.Add(obj)
	}
	ev := &apitrace.ServerState{Resource: resource, RV: l.ResourceVersion}
	for _, obj := range st.List() {
		ev.Items = append(ev.Items, apitrace.Item{Key: cache.MetaNamespaceKeyFunc(obj),
			RV: obj.GetObjectMeta().ResourceVersion, Value: valueOf(obj)})
	}
	return ev
}
