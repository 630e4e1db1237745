package kubeproxy

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/internal/supervise"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// Proxy is kube-proxy on one host incarnation: the node's routing table
// and the kube-proxy process that programs it. Boot exposes it under
// ExposeName; the process restarts only through a restart-process fault.
type Proxy struct {
	h     *sim.Host
	cfg   Config
	table *Table
	// procs runs the kube-proxy process, one at a time.
	procs supervise.Supervisor[*process]
}

// Boot returns the Boot of kube-proxy on a node's host: the table starts
// empty (traced as a proxytrace.Flush with reason FlushBoot), the
// kube-proxy process starts, its restart is registered (the host's
// HostSpec.Processes must declare Process) and the Proxy is exposed under
// ExposeName.
func Boot(cfg Config) func(*sim.Host) {
	return func(h *sim.Host) {
		c := cfg.withDefaults(h)
		p := &Proxy{h: h, cfg: c, table: NewTable(c.Node)}
		h.Emit(&proxytrace.Flush{Node: c.Node, Reason: proxytrace.FlushBoot})
		p.procs.New = func() *process { return newProcess(p) }
		p.procs.Restart()
		h.OnProcessRestart(Process, p.restart)
		h.Expose(ExposeName, p)
	}
}

// Beside returns a Boot that runs boot and then kube-proxy's: a node's
// host runs the kubelet and kube-proxy side by side, as
// Beside(kubelet.Boot(kcfg), cfg) with HostSpec.Processes listing both
// processes.
func Beside(boot func(*sim.Host), cfg Config) func(*sim.Host) {
	proxy := Boot(cfg)
	return func(h *sim.Host) {
		boot(h)
		proxy(h)
	}
}

// Of returns the kube-proxy of h's current incarnation, or nil when h runs
// none.
func Of(h *sim.Host) *Proxy {
	p, _ := h.Exposed(ExposeName).(*Proxy)
	return p
}

// Node returns the node's name.
func (p *Proxy) Node() string { return p.cfg.Node }

// Generation counts the kube-proxy processes of this host incarnation,
// from 1.
func (p *Proxy) Generation() int { return p.procs.Started() }

// Lookup returns where the node routes traffic to clusterIP:port over
// protocol ("" means TCP) now: the route of the rules that match it, and
// false when none does (nothing answers that address). A route without
// backends rejects the traffic (connection refused). The traffic model
// asks it; its Backends are the table's: never modify them.
func (p *Proxy) Lookup(clusterIP string, port int32, protocol string) (Route, bool) {
	return p.table.Lookup(clusterIP, port, protocol)
}

// Routes returns every route of the node's table, in key order.
func (p *Proxy) Routes() []Route { return p.table.Routes() }

// restart restarts the kube-proxy process, not the host: its informers,
// caches, runner and clients are dropped and rebuilt; the table (the
// kernel's rules) survives and is rewritten by the new process's first
// sync, once its informers have listed.
func (p *Proxy) restart() { p.procs.Restart() }

// process is one run of the kube-proxy process. Every callback it arms
// checks stopped first, so that nothing of a stopped process acts again.
type process struct {
	p       *Proxy
	h       *sim.Host
	cfg     Config
	client  *client.Client
	cache   *Cache
	runner  *Runner
	stopped bool

	services, slices         *cache.Informer
	serviceRefl, sliceRefl   *cache.Reflector
	servicesSynced, slSynced bool

	// loop is the runner's timer; run is a requested run, coalesced with
	// every other request of the same instant (the runner's channel).
	loop, run *sim.Timer

	// The flush-on-disconnect ablation's check.
	health       *client.Client
	disconnected bool
}

func newProcess(p *Proxy) *process {
	q := &process{p: p, h: p.h, cfg: p.cfg, cache: NewCache(p.cfg.Node)}
	q.cache.IgnoreReadiness = p.cfg.Ablations.Has(ablation.ProxyIgnoresReadiness)
	q.cache.MergeServices = p.cfg.Ablations.Has(ablation.ProxyMergesServices)
	q.cache.NoTerminatingFallback = p.cfg.Ablations.Has(ablation.ProxyNoTerminatingFallback)
	q.cache.IgnoreTrafficPolicy = p.cfg.Ablations.Has(ablation.ProxyIgnoresTrafficPolicy)
	q.cache.IgnoreServiceUpdates = p.cfg.Ablations.Has(ablation.ProxyIgnoresServiceUpdates)
	q.client = client.New(p.h, q.clientConfig(p.cfg.Node+"/kube-proxy", 0))
	if p.cfg.Ablations.Has(ablation.ProxyFlushOnDisconnect) {
		q.health = client.New(p.h, q.clientConfig(p.cfg.Node+"/kube-proxy/health", p.cfg.DisconnectTimeout))
	}
	return q
}

// clientConfig is the configuration of a client of the process, with
// ports of its own (client.Config.ForProcess).
func (q *process) clientConfig(name string, timeout time.Duration) client.Config {
	return client.Config{Name: name, User: User, Servers: q.cfg.Servers, Timeout: timeout}.ForProcess(q.p.Generation())
}
