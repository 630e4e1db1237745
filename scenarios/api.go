package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
)

// Roles of the API layer's hosts. Only RoleAPIServer and
// RoleEtcdOperator may reach etcd's client port.
const (
	RoleAPIServer = "apiserver"
	RoleAPIClient = "api-client"
	// RoleEtcdOperator is an operator's tool that holds etcd's client
	// certificates, as a backup job running etcdctl does.
	RoleEtcdOperator = "etcd-operator"
)

// Defaults of APITopology.
const (
	DefaultAPIServers = 3
	// APIDuration is the API scenarios' default length, settle window
	// included: a minute of faults, then APISettle.
	APIDuration = 60*time.Second + APISettle
	// APISettle is the API scenarios' settle window. A client finds a
	// connection that died under the faults by its HTTP/2 health check, up
	// to 45 s after the last frame it read (client.DefaultReadIdleTimeout
	// 30 s + DefaultPingTimeout 15 s; a restarted server resets it at the
	// first ping or retransmission, sooner); the call or watch on it fails
	// then. A reflector that failed repeatedly during the faults waits up
	// to a minute before it lists again (client-go's backoff: capped at
	// 30 s, with jitter up to as much again, and reset only after two quiet
	// minutes), and that wait can be followed by a second one, after a
	// legitimate 410 on the resumed watch. The window holds the detection,
	// both waits and the relist: 45 + 60 + 60 + 5 = 170 s. (Before the
	// health check, a 10 s request timeout stood where the 45 s detection
	// is: 10 + 60 + 60 + 5 = 135 s. With 75 s, long runs of
	// api-watch-disconnects ended with informers still waiting: seeds 17
	// and 23 with --duration 300s.)
	APISettle = 45*time.Second + 60*time.Second + 60*time.Second + 5*time.Second
	// writeAfterFaults is how long the writers go on after the faults end
	// (at most until QuietWindow before the end): the rest of the settle
	// window is quiet, and cheap to simulate.
	writeAfterFaults = 10 * time.Second
	// emitBefore is how long before the end of the run the informers emit
	// their stores and the server's state is listed.
	emitBefore = time.Second
	// buggifyEmitBefore is emitBefore in a run with BUGGIFY on, whose
	// API servers now and then refuse a request with 429 and a
	// Retry-After of 1 s (sim.BuggifyEarly429): the state reporter's list
	// then needs a second or more, which a real client would take, and the
	// run must leave it that time (never before the writers stop).
	buggifyEmitBefore = 10 * time.Second
)

// APITopology sizes the API layer an API scenario builds on its etcd
// cluster.
type APITopology struct {
	// Servers is the number of API server replicas; default 3.
	Servers int
	// Counters are counter writers (apiload.BootCounter), all on one
	// counter; CRUD are CRUD clients (apiload.BootCRUD) on CRUDKeys Leases;
	// Informers are informer hosts, each with an informer on leases and
	// one on pods; Rogue adds the misbehaving client (apiload.BootRogue).
	Counters, CRUD, Informers int
	CRUDKeys                  int
	Rogue                     bool
	// StatusWriters and SpecWriters are the status workload's writers
	// (apiload.BootStatusWriter) on one ReplicaSet: status writers update
	// its status (update-status), spec writers scale it (update), all with
	// RetryOnConflict; the state reporter then lists ReplicaSets too.
	StatusWriters, SpecWriters int
	// Patchers are the patch workload's writers (apiload.BootPatcher):
	// each merge-patches its own annotation of one Lease.
	Patchers int
	// Think is the mean pause between a writer's operations; default
	// apiload.DefaultThink.
	Think time.Duration
	// EventFreshDuration, when set, overrides how much history the API
	// servers' watch caches size their rings for (75 s); the rings keep
	// at least 100 events whatever it is.
	EventFreshDuration time.Duration
	// InformerPageSize, when positive, pages the informers' lists, as
	// client-go's Reflector.WatchListPageSize does: a relist from a
	// resourceVersion then reads etcd at exactly that revision (410 once
	// it is compacted), and a list from "" pages with continue tokens.
	// PagedInformers, when positive, limits it to the last PagedInformers
	// informer hosts.
	InformerPageSize int64
	PagedInformers   int
	// CompactionInterval is the API servers' --etcd-compaction-interval:
	// how often they compact etcd's history (to the revision of one
	// interval earlier). Zero means kube-apiserver's default, 5 min, longer
	// than an API scenario's faults; scenarios set it lower, as an
	// operator can, so that compaction happens under them.
	CompactionInterval time.Duration
	// Policy is the API servers' authorization policy, which the access
	// check reads too; nil means rbac.Default() (a test adds its own
	// identities to a copy: rbac.Default().Allow(...)).
	Policy *rbac.Policy
	// Custom, when set, registers this custom kind on the API servers, and
	// the counter writers and CRUD clients write objects of it instead of
	// Leases (unless CustomCRUD is set); the informers watch it and the
	// state reporter lists it too. Nil changes nothing.
	Custom *model.CustomResourceDefinition
	// CustomCRUD, with Custom, keeps the counter writers and CRUD clients
	// on Leases and adds this many CRUD clients ("crud-<plural>-N") that
	// create, update, read and delete objects of Custom's kind beside
	// them: the custom kind's path (its validation, storage, watch cache
	// and authorization) is served and judged beside the built-in kinds'.
	CustomCRUD int
	// Knobs are settings a swarm run switches on and off per seed
	// (APIKnob); none (every scenario but the API swarm) draws nothing.
	Knobs []APIKnob
}

// APILayer is a built API layer: its hosts by name.
type APILayer struct {
	Servers   []string // apiserver-1..N
	Clients   []string // every API client host: writers, informers, rogue, state reporter
	Writers   []string // counter writers and CRUD clients
	Informers []string
	w         *sim.World
}

// apiResources are what the informers watch and the state reporter lists.
var apiResources = []string{model.ResourceLeasesName, model.ResourcePodsName}

// BuildAPI adds the API layer to a built etcd cluster: the API servers
// (which alone may reach etcd's client port: the fabric refuses anyone
// else), the workload's clients, which stop starting operations 10 s after
// faultEnd (and by end-QuietWindow), the informers, which emit their stores at end-1s
// (end-10s with BUGGIFY on, buggifyEmitBefore), and a
// state reporter, which lists the resources from etcd then. It adds the
// fault targets "apiservers", "api-clients", "api-informers" and
// "api-writers".
func BuildAPI(c *Cluster, top APITopology, abl ablation.Set, faultEnd, end time.Duration) (*APILayer, error) {
	w := c.World
	drawAPIKnobs(c, &top)
	informed := apiResources
	var reg *model.Registry
	if top.Custom != nil {
		var err error
		if reg, err = model.NewRegistry(*top.Custom); err != nil {
			return nil, err
		}
		informed = append(slices.Clip(informed), top.Custom.Plural)
	}
	l, servers, err := addAPIServers(c, top.Servers, apiserver.Config{EventFreshDuration: top.EventFreshDuration,
		CompactionInterval: top.CompactionInterval, Policy: top.Policy, Ablations: abl, Resources: reg})
	if err != nil {
		return nil, err
	}
	add := func(name string, boot func(*sim.Host)) error {
		l.Clients = append(l.Clients, name)
		_, err := w.AddHost(sim.HostSpec{Name: name, Role: RoleAPIClient, Boot: boot})
		return err
	}
	quiet, emit := min(faultEnd+writeAfterFaults, end-QuietWindow), end-emitBefore
	leases := top.Custom // the kind the counters and CRUD clients write (nil: Leases)
	if top.CustomCRUD > 0 {
		leases = nil
	}
	if w.BuggifyOn() {
		emit = max(end-buggifyEmitBefore, quiet+time.Second)
	}
	for i := 1; i <= top.Counters; i++ {
		name := fmt.Sprintf("counter-%d", i)
		l.Writers = append(l.Writers, name)
		if err := add(name, apiload.BootCounter(apiload.CounterConfig{WorkloadConfig: apiload.WorkloadConfig{Name: name, Servers: servers, Think: top.Think, Until: quiet}, Custom: leases})); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= top.CRUD; i++ {
		name := fmt.Sprintf("crud-%d", i)
		l.Writers = append(l.Writers, name)
		if err := add(name, apiload.BootCRUD(apiload.CRUDConfig{WorkloadConfig: apiload.WorkloadConfig{Name: name, Servers: servers, Think: top.Think, Until: quiet}, Keys: top.CRUDKeys, Custom: leases})); err != nil {
			return nil, err
		}
	}
	for i := 1; top.Custom != nil && i <= top.CustomCRUD; i++ {
		name := fmt.Sprintf("crud-%s-%d", top.Custom.Plural, i)
		l.Writers = append(l.Writers, name)
		if err := add(name, apiload.BootCRUD(apiload.CRUDConfig{WorkloadConfig: apiload.WorkloadConfig{Name: name, Servers: servers, Think: top.Think, Until: quiet}, Keys: top.CRUDKeys, Custom: top.Custom})); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= top.Informers; i++ {
		name := fmt.Sprintf("informer-%d", i)
		pageSize := top.InformerPageSize
		if top.PagedInformers > 0 && i <= top.Informers-top.PagedInformers {
			pageSize = 0
		}
		l.Informers = append(l.Informers, name)
		if err := add(name, apiload.BootInformers(apiload.InformerConfig{Name: name, Servers: servers, Resources: informed,
			Ablations: abl, EmitAt: emit, PageSize: pageSize})); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= top.StatusWriters+top.SpecWriters; i++ {
		spec := i > top.StatusWriters
		name := fmt.Sprintf("status-%d", i)
		if spec {
			name = fmt.Sprintf("scale-%d", i-top.StatusWriters)
		}
		l.Writers = append(l.Writers, name)
		if err := add(name, apiload.BootStatusWriter(apiload.StatusWriterConfig{WorkloadConfig: apiload.WorkloadConfig{Name: name, Servers: servers, Think: top.Think, Until: quiet}, Spec: spec})); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= top.Patchers; i++ {
		name := fmt.Sprintf("patcher-%d", i)
		l.Writers = append(l.Writers, name)
		if err := add(name, apiload.BootPatcher(apiload.PatcherConfig{WorkloadConfig: apiload.WorkloadConfig{Name: name, Servers: servers, Think: top.Think, Until: quiet}})); err != nil {
			return nil, err
		}
	}
	if top.Rogue {
		if err := add("rogue", apiload.BootRogue(apiload.RogueConfig{Name: "rogue", Servers: servers, Until: quiet})); err != nil {
			return nil, err
		}
	}
	reported := informed
	if top.StatusWriters+top.SpecWriters > 0 {
		reported = append(slices.Clip(reported), model.ResourceReplicaSetsName)
	}
	if err := add("api-state", apiload.BootStateReporter(apiload.StateReporterConfig{Name: "api-state", Servers: servers,
		Resources: reported, At: emit, ValueOf: apiload.StateValueOf})); err != nil {
		return nil, err
	}
	return l, nil
}

// addAPIServers adds n API server replicas (DefaultAPIServers when n <= 0)
// on the cluster's etcd members, each starting on a different member and
// configured as tmpl (its name and etcd endpoints filled in), and the
// fabric rule that only they may reach etcd's client port. It returns the
// layer (registered as c.API, with its fault targets) and their hosts.
func addAPIServers(c *Cluster, n int, tmpl apiserver.Config) (*APILayer, []sim.HostID, error) {
	w := c.World
	if n <= 0 {
		n = DefaultAPIServers
	}
	etcdHosts := c.MemberIDs()
	l := &APILayer{w: w}
	if tmpl.Decoded == nil {
		tmpl.Decoded = apiserver.NewDecoded()
	}
	var servers []sim.HostID
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("apiserver-%d", i)
		cfg := tmpl
		cfg.Name, cfg.Etcd = name, rotated(etcdHosts, i-1)
		h, err := w.AddHost(sim.HostSpec{Name: name, Role: RoleAPIServer, Boot: apiserver.Boot(cfg)})
		if err != nil {
			return nil, nil, err
		}
		l.Servers = append(l.Servers, name)
		servers = append(servers, h.ID())
	}
	w.Network().AllowOnly(etcd.ClientPort, RoleAPIServer, RoleEtcdOperator)
	c.API = l
	w.AddResolver(l.resolve)
	return l, servers, nil
}

// rotated returns s rotated left by k: the etcd endpoints of the k-th API
// server (from 0), which starts on a different member than its
// neighbours.
func rotated[T any](s []T, k int) []T {
	out := make([]T, 0, len(s))
	for j := range s {
		out = append(out, s[(k+j)%len(s)])
	}
	return out
}

// resolve knows the API layer's groups: "apiservers", "api-clients",
// "api-informers" and "api-writers".
func (l *APILayer) resolve(name string) ([]sim.HostID, bool) {
	return l.resolveIn(name, map[string][]string{"apiservers": l.Servers, "api-clients": l.Clients,
		"api-informers": l.Informers, "api-writers": l.Writers})
}

// resolveIn resolves name among groups of host names, as they are now.
func (l *APILayer) resolveIn(name string, groups map[string][]string) ([]sim.HostID, bool) {
	names, ok := groups[name]
	if !ok {
		return nil, false
	}
	return hostIDs(l.w, names), true
}

// APIEtcdTopology is the etcd cluster under an API scenario: no KV
// clients, watchers or compactor (only API servers may reach etcd, and they
// compact it).
func APIEtcdTopology(members int) Topology {
	return Topology{Members: members, SnapshotCount: 2000}
}
