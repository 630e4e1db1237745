package scheduler

import (
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/internal/supervise"
	"github.com/kubesim/kubesim/sim"
)

// Scheduler is one kube-scheduler replica on its host: the process
// supervisor around the current scheduler process (instance). A process
// that lost its leadership exits; the Scheduler starts a fresh one after
// RestartDelay, as the kubelet restarts the static pod. Boot exposes it as
// "scheduler" for scenarios to inspect.
type Scheduler struct {
	cfg    Config
	h      *sim.Host
	tracer *leaderelection.Tracer // traces its leadership and writes
	// c outlives the processes: a new process reusing it is like a new
	// connection from the same host (its calls and watches are its own;
	// the old process's callbacks are all no-ops).
	c *client.Client
	// le is the leader elector's own client, as the real lock's
	// (resourcelock.NewFromKubeconfig: a "leader-election" clientset whose
	// request timeout is leaderelection.ClientTimeout); it also outlives the
	// processes.
	le   *client.Client
	pick *sim.Stream // tie-breaks of selectHost
	// procs runs the scheduler process (instance), one at a time.
	procs supervise.Supervisor[*instance]
}

// Boot returns the host boot function of a kube-scheduler replica.
func Boot(cfg Config) func(*sim.Host) {
	return func(h *sim.Host) {
		s := newScheduler(h, cfg)
		h.Expose(ExposeName, s)
		s.procs.Restart()
	}
}

func newScheduler(h *sim.Host, cfg Config) *Scheduler {
	cfg = cfg.withDefaults(h)
	s := &Scheduler{cfg: cfg, h: h, tracer: leaderelection.NewTracer(h, Component, cfg.Name, leaderelection.DefaultNamespace+"/"+cfg.LeaseName)}
	ccfg := client.Config{Name: cfg.Name, User: User, Servers: cfg.Servers}
	if !cfg.DisableLeaderElection {
		// Only a leader schedules: every write but its Lease's is a
		// leader's.
		ccfg.OnWrite = s.tracer.Write
	}
	s.c = client.New(h, ccfg)
	if !cfg.DisableLeaderElection {
		// The lock's own client, with its request timeout, as
		// makeLeaderElectionConfig builds it through
		// resourcelock.NewFromKubeconfig (cmd/kube-scheduler/app/options).
		s.le = client.New(h, client.Config{Name: cfg.Name + "/leader-election", User: User, Servers: cfg.Servers,
			Timeout: leaderelection.ClientTimeout(cfg.RenewDeadline)})
	}
	s.pick = h.Rand("scheduler/select-host")
	s.procs.New = func() *instance { return &instance{s: s} }
	return s
}

// ReleaseOnCancel is kube-scheduler's leader election setting: true, as
// makeLeaderElectionConfig sets it (cmd/kube-scheduler/app/options/options.go).
const ReleaseOnCancel = true

// LeaderElectionClient names the client of replica name's leader elector
// (its requests' own connection).
func LeaderElectionClient(name string) string { return name + "/leader-election" }

// Identity returns the replica's identity (Config.Name).
func (s *Scheduler) Identity() string { return s.cfg.Name }

// Leading reports whether the current process leads (always true once
// running without leader election).
func (s *Scheduler) Leading() bool {
	cur := s.procs.Current()
	return cur != nil && cur.leading
}

// Restarts counts the processes started after one exited on a lost
// leadership.
func (s *Scheduler) Restarts() int { return max(s.procs.Started()-1, 0) }

// Pending returns the keys ("namespace/name") of the pods the current
// process has in its scheduling queue (active, backing off, unschedulable
// or in flight), in order; nil when it does not schedule.
func (s *Scheduler) Pending() []string {
	cur := s.procs.Current()
	if cur == nil || cur.queue == nil {
		return nil
	}
	return cur.queue.keys()
}

// handleExit is the process exiting on a lost leadership; it is restarted
// after RestartDelay.
func (s *Scheduler) handleExit(p *instance) {
	s.procs.RestartAfter(s.h, s.cfg.RestartDelay, "scheduler-restart", p)
}

// instance is one scheduler process. Once stopped, every callback it
// registered (timers, API answers, informer events) does nothing.
type instance struct {
	s       *Scheduler
	stopped bool
	elector *leaderelection.LeaderElector
	leading bool
	// run state, made when the process starts scheduling
	sched *schedulingLoop
	queue *schedulingQueue
}

// Start runs for leadership, or schedules at once without leader election.
func (p *instance) Start() {
	s := p.s
	if s.cfg.DisableLeaderElection {
		p.leading = true
		p.run()
		return
	}
	// kube-scheduler's makeLeaderElectionConfig
	// (cmd/kube-scheduler/app/options/options.go) sets ReleaseOnCancel:
	// true: when its renewals fail (or it is asked to stop) the elector
	// first clears the Lease's holder, if it last saw itself as holder,
	// and only then calls OnStoppedLeading, on which the process exits.
	// Until then the scheduling loop runs on: OnStartedLeading's context
	// is Run's, cancelled only once renew (and its release) has returned
	// (client-go tools/leaderelection/leaderelection.go, Run and renew).
	le, err := leaderelection.NewLeaderElector(leaderelection.Config{
		Client:          s.le,
		ReleaseOnCancel: ReleaseOnCancel,
		Namespace:       leaderelection.DefaultNamespace,
		Name:            s.cfg.LeaseName,
		Identity:        s.cfg.Name,
		LeaseDuration:   s.cfg.LeaseDuration,
		RenewDeadline:   s.cfg.RenewDeadline,
		RetryPeriod:     s.cfg.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: p.handleStartedLeading,
			OnStoppedLeading: p.handleStoppedLeading,
			OnRenewed:        s.tracer.Renewed,
		},
		Ablations: s.cfg.Ablations,
	})
	if err != nil {
		panic("scheduler: " + err.Error()) // a configuration bug
	}
	p.elector = le
	le.Run()
}

// handleStartedLeading starts scheduling.
func (p *instance) handleStartedLeading() {
	if p.stopped {
		return
	}
	p.leading = true
	p.s.tracer.Leading(true)
	p.run()
}

// handleStoppedLeading is kube-scheduler's OnStoppedLeading: "leaderelection
// lost", and the process exits.
func (p *instance) handleStoppedLeading() {
	if p.stopped {
		return
	}
	if p.leading {
		p.s.tracer.Leading(false)
	}
	p.Stop()
	p.s.handleExit(p)
}

// run starts the informers and the scheduling loop.
func (p *instance) run() {
	p.sched = newSchedulingLoop(p)
	p.queue = p.sched.queue
	p.sched.run()
}

// Stop ends the process.
func (p *instance) Stop() {
	p.stopped = true
	p.leading = false
	if p.sched != nil {
		p.sched.stop()
	}
	if p.elector != nil {
		p.elector.Stop()
	}
}
