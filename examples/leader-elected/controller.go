package leaderelected

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/sim"
)

// Component names the controller in the trace, and LeaseName its Lease
// (in Namespace), on which the replicas elect a leader.
const (
	Component = "tenant-controller"
	LeaseName = "tenant-controller"
)

// Timings of a replica: how often it looks whether its informer has
// synced (client-go's WaitForCacheSync polls every 100 ms), and how long
// its process takes to come back after it exited on losing the lease (a
// container restarted by the kubelet).
const (
	syncPoll     = 100 * time.Millisecond
	restartDelay = time.Second
)

// Config configures one replica.
type Config struct {
	// Identity is the replica's holder identity; the example uses its
	// host's name, so that a fault can be aimed at the leader's host.
	Identity string
	// User is the controller's service account user
	// (rbac.ServiceAccountUser); the policy must grant it Tenants, their
	// status, and Leases.
	User string
	// Servers are the API server replicas it talks to.
	Servers []sim.HostID
	// Broken turns on the bug the example's test must catch: on losing
	// the lease, the replica logs and carries on (its worker keeps
	// syncing Tenants), where a controller must stop, as client-go's
	// OnStoppedLeading is meant to make it (kube-controller-manager exits).
	Broken bool
}

// Boot returns the Boot function of a replica's host: on every boot (the
// first and after each crash) it starts afresh and runs for leader.
func Boot(cfg Config) func(h *sim.Host) {
	return func(h *sim.Host) {
		r := &replica{h: h, cfg: cfg, tracer: leaderelection.NewTracer(h, Component, cfg.Identity, Namespace+"/"+LeaseName)}
		// The work's client traces every write as a leader's, as it
		// leaves (LeaderWrite): leader-exclusivity judges them. The
		// election has a client of its own with client-go's timeout.
		r.c = client.New(h, client.Config{Name: cfg.Identity, User: cfg.User, Servers: cfg.Servers, OnWrite: r.tracer.Write})
		r.le = client.New(h, client.Config{Name: cfg.Identity + "/leader-election", User: cfg.User, Servers: cfg.Servers,
			Timeout: leaderelection.ClientTimeout(leaderelection.DefaultRenewDeadline)})
		r.start()
	}
}

// replica is the controller on one host; its process comes and goes.
type replica struct {
	h      *sim.Host
	cfg    Config
	tracer *leaderelection.Tracer
	c, le  *client.Client
}

// process is one run of the controller: a candidate that, once it leads,
// runs an informer on Tenants and one worker. Once stopped, every
// callback it registered does nothing.
type process struct {
	r        *replica
	elector  *leaderelection.LeaderElector
	informer *cache.Informer
	queue    *workqueue.Queue
	stopped  bool
}

// start runs a new process for leader.
func (r *replica) start() {
	p := &process{r: r}
	le, err := leaderelection.NewLeaderElector(leaderelection.Config{
		Client: r.le, Namespace: Namespace, Name: LeaseName, Identity: r.cfg.Identity,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: p.lead,
			OnStoppedLeading: p.handleStoppedLeading,
			OnRenewed:        r.tracer.Renewed,
		},
	})
	if err != nil {
		panic(err) // the defaults are valid
	}
	p.elector = le
	le.Run()
}

// lead starts the work: the informer, then the worker once it has synced.
func (p *process) lead() {
	if p.stopped {
		return
	}
	p.r.tracer.Leading(true)
	p.queue = workqueue.New(p.r.h, "tenants", nil)
	p.informer = cache.NewInformer(p.r.c, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{
		Resource: Tenants.Plural, Namespace: Namespace}})
	enqueue := func(obj model.Object) {
		if obj != nil {
			p.queue.Add(cache.MetaNamespaceKeyFunc(obj))
		}
	}
	p.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj model.Object) { enqueue(obj) },
	})
	p.informer.Run()
	p.waitForSync()
}

func (p *process) waitForSync() {
	switch {
	case p.stopped:
	case p.informer.HasSynced():
		p.queue.Run(1, p.sync)
	default:
		p.r.h.After(syncPoll, "tenants-cache-sync", p.waitForSync)
	}
}

// handleStoppedLeading is OnStoppedLeading: the lease is lost, and the
// process stops its work and exits, to run for leader again as a new
// process.
func (p *process) handleStoppedLeading() {
	if p.stopped {
		return
	}
	p.r.tracer.Leading(false)
	if p.r.cfg.Broken {
		return // the bug: the worker syncs on
	}
	p.stopped = true
	if p.informer != nil {
		p.informer.Stop()
		p.queue.ShutDown()
	}
	p.r.h.After(restartDelay, "tenant-controller-restart", p.r.start)
}

// sync makes the status of the Tenant at key what its spec asks:
// done(nil) forgets the key, done(err) requeues it with backoff.
func (p *process) sync(key string, done func(error)) {
	obj, ok := p.informer.Lister().Get(key)
	if p.stopped || !ok {
		done(nil)
		return
	}
	t := obj.(*model.CustomObject)
	st, err := want(t)
	if err != nil {
		done(nil) // a spec the controller cannot read: nothing to retry
		return
	}
	if cur, err := model.StatusAs[TenantStatus](t); err == nil && cur == st {
		done(nil)
		return
	}
	t = t.DeepCopy() // never write to the cache's copy
	if err := t.SetStatus(st); err != nil {
		done(nil)
		return
	}
	p.r.c.CustomResources(Tenants, Namespace).UpdateStatus(t, func(_ model.Object, err error) {
		if !p.stopped {
			done(err)
		}
	})
}
