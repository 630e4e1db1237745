package manager

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/nodes/internal/supervise"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// Identity and names, as the real kube-controller-manager's.
const (
	// User is the controller manager's API identity.
	User = apitrace.UserControllerManager
	// Component names it in spoketrace.Leading events.
	Component = "kube-controller-manager"
	// LeaseName is the Lease the replicas elect a leader on, in
	// leaderelection.DefaultNamespace (kube-system).
	LeaseName = "kube-controller-manager"
	// ExposeName is what Boot exposes the *Manager under.
	ExposeName = "controller-manager"
)

// Defaults.
const (
	// DefaultRestartDelay is how long the process is down after exiting on
	// a lost leadership (see the package doc).
	DefaultRestartDelay = 1 * time.Second
	// PollInterval is the poll-not-watch ablation's list period.
	PollInterval = 2 * time.Second
)

// Config configures a kube-controller-manager replica. The zero value
// (with Servers) is the real default.
type Config struct {
	// Name is the replica's identity (its leader election holder identity)
	// and its client's trace name; default the host's name.
	Name string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Ablations are the run's ablation switches, handed unchanged to the
	// controllers and the leader elector.
	Ablations ablation.Set
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s
	// and 2 s (--leader-elect-* defaults).
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// RestartDelay is how long the process stays down after exiting on a
	// lost leadership; default DefaultRestartDelay.
	RestartDelay time.Duration
	// TerminatedPodThreshold is --terminated-pod-gc-threshold, handed to
	// the pod garbage collector (podgc.Config.TerminatedPodThreshold): 0
	// means the default, 12,500; a negative value disables the
	// collection of terminated pods, as the real flag's 0 does.
	TerminatedPodThreshold int
	// MaxEndpointsPerSlice is --max-endpoints-per-slice, handed to the
	// EndpointSlice controller (endpointslice.Config.MaxEndpointsPerSlice):
	// 0 means the default, 100.
	MaxEndpointsPerSlice int
	// Resources are the kinds the API servers serve (their
	// apiserver.Config.Resources); nil means the built-in kinds. The
	// leader runs a shared informer on each custom kind, so that the
	// garbage collector collects the dependents of custom owners (and
	// custom dependents) as it does the built-in kinds'.
	Resources *model.Registry
}

func (cfg Config) withDefaults(h *sim.Host) Config {
	cfg.Name = defaults.HostName(cfg.Name, h)
	cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = leaderelection.WithDefaultTimes(cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod)
	if cfg.RestartDelay <= 0 {
		cfg.RestartDelay = DefaultRestartDelay
	}
	return cfg
}

// Manager is one replica on its host: it runs one process at a time, and
// starts a new one after a process exited on a lost leadership.
type Manager struct {
	h      *sim.Host
	cfg    Config
	c      *client.Client         // the controllers' client
	le     *client.Client         // the leader election client
	tracer *leaderelection.Tracer // traces its leadership and writes
	// procs runs the kube-controller-manager process, one at a time.
	procs supervise.Supervisor[*process]
}

// Boot returns the boot function of a controller manager host.
func Boot(cfg Config) func(*sim.Host) {
	return func(h *sim.Host) {
		cfg := cfg.withDefaults(h)
		m := &Manager{h: h, cfg: cfg, tracer: leaderelection.NewTracer(h, Component, cfg.Name, leaderelection.DefaultNamespace+"/"+LeaseName)}
		// Only a leader runs the controllers: every write is a leader's.
		m.c = client.New(h, client.Config{Name: cfg.Name, User: User, Servers: cfg.Servers, OnWrite: m.tracer.Write})
		m.le = client.New(h, client.Config{Name: LeaderElectionClient(cfg.Name), User: User, Servers: cfg.Servers,
			Timeout: leaderelection.ClientTimeout(cfg.RenewDeadline)})
		h.Expose(ExposeName, m)
		m.procs.New = func() *process { return &process{m: m} }
		m.procs.Restart()
	}
}

// ReleaseOnCancel is kube-controller-manager's leader election setting:
// false, as leaderElectAndRun leaves it
// (cmd/kube-controller-manager/app/controllermanager.go).
const ReleaseOnCancel = false

// LeaderElectionClient names the client of replica name's leader elector
// (its requests' own connection, with leaderelection.ClientTimeout).
func LeaderElectionClient(name string) string { return name + "/leader-election" }

// Identity returns the replica's identity (Config.Name).
func (m *Manager) Identity() string { return m.cfg.Name }

// Leading reports whether the current process leads.
func (m *Manager) Leading() bool {
	cur := m.procs.Current()
	return cur != nil && cur.leading
}

// Restarts counts the processes started after one exited.
func (m *Manager) Restarts() int { return max(m.procs.Started()-1, 0) }

// Context returns the leading process's controller context, or nil when
// the replica does not lead (for tests and scenario inspection).
func (m *Manager) Context() *controllers.Context {
	if !m.Leading() {
		return nil
	}
	return m.procs.Current().ctx
}

// handleExit restarts the process after RestartDelay.
func (m *Manager) handleExit(p *process) {
	m.procs.RestartAfter(m.h, m.cfg.RestartDelay, "controller-manager-restart", p)
}

// process is one run of kube-controller-manager.
type process struct {
	m           *Manager
	elector     *leaderelection.LeaderElector
	ctx         *controllers.Context
	informers   []*cache.Informer
	controllers []controllers.Controller
	leading     bool
	stopped     bool
}

// Start runs for leadership.
func (p *process) Start() {
	m := p.m
	// kube-controller-manager's leaderElectAndRun
	// (cmd/kube-controller-manager/app/controllermanager.go) leaves
	// ReleaseOnCancel false, unlike kube-scheduler: a replica that loses
	// its leadership exits without clearing the Lease, and the next
	// leader waits out the lease duration.
	le, err := leaderelection.NewLeaderElector(leaderelection.Config{
		Client:          m.le,
		ReleaseOnCancel: ReleaseOnCancel,
		Namespace:       leaderelection.DefaultNamespace,
		Name:            LeaseName,
		Identity:        m.cfg.Name,
		LeaseDuration:   m.cfg.LeaseDuration,
		RenewDeadline:   m.cfg.RenewDeadline,
		RetryPeriod:     m.cfg.RetryPeriod,
		Ablations:       m.cfg.Ablations,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: p.handleStartedLeading,
			OnStoppedLeading: p.handleStoppedLeading,
			OnRenewed:        m.tracer.Renewed,
		},
	})
	if err != nil {
		panic("controller-manager: " + err.Error()) // a configuration bug
	}
	p.elector = le
	le.Run()
}

// handleStartedLeading starts the controllers, then the informers.
func (p *process) handleStartedLeading() {
	if p.stopped {
		return
	}
	p.leading = true
	p.m.tracer.Leading(true)
	p.ctx = p.newContext()
	p.controllers = newControllers(p.ctx, p.m.cfg)
	for _, c := range p.controllers {
		c.Run()
	}
	for _, inf := range p.informers {
		inf.Run()
	}
}

// handleStoppedLeading is OnStoppedLeading: "leaderelection lost", and the
// process exits.
func (p *process) handleStoppedLeading() {
	if p.stopped {
		return
	}
	if p.leading {
		p.m.tracer.Leading(false)
	}
	if p.m.cfg.Ablations.Has(ablation.ManagerNoExit) {
		p.leading = false // and its controllers run on
		return
	}
	p.Stop()
	p.m.handleExit(p)
}

// Stop ends everything the process runs.
func (p *process) Stop() {
	p.stopped = true
	p.leading = false
	for _, c := range p.controllers {
		c.Stop()
	}
	for _, inf := range p.informers {
		inf.Stop()
	}
	p.elector.Stop()
}

// newContext builds the shared informers, as the SharedInformerFactory.
func (p *process) newContext() *controllers.Context {
	m := p.m
	ctx := controllers.NewContext(m.h, m.c, func(rc *cache.ReflectorConfig) {
		if m.cfg.Ablations.Has(ablation.PollNotWatch) {
			rc.PollInterval = PollInterval
		}
	})
	ctx.AddCustomInformers(m.cfg.Resources)
	p.informers = ctx.Informers()
	return ctx
}
