package scheduler

import (
	"cmp"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Identity and names, as the real kube-scheduler's.
const (
	// User is the scheduler's API identity.
	User = "system:kube-scheduler"
	// Component names the scheduler in spoketrace.Leading events.
	Component = "kube-scheduler"
	// DefaultLeaseName is the Lease replicas elect a leader on
	// (--leader-elect-resource-name), in leaderelection.DefaultNamespace
	// (kube-system).
	DefaultLeaseName = "kube-scheduler"
	// ExposeName is what Boot exposes the *Scheduler under.
	ExposeName = "scheduler"
)

// Defaults of Config: the real kube-scheduler's.
const (
	// DefaultPodInitialBackoff is the backoff after a pod's first failed
	// attempt (podInitialBackoffSeconds: 1); it doubles per attempt.
	DefaultPodInitialBackoff = 1 * time.Second
	// DefaultPodMaxBackoff caps the backoff (podMaxBackoffSeconds: 10).
	DefaultPodMaxBackoff = 10 * time.Second
	// DefaultPodMaxInUnschedulablePodsDuration is how long an unschedulable
	// pod waits without a cluster event before it is retried anyway
	// (podMaxInUnschedulablePodsDuration: 5 min).
	DefaultPodMaxInUnschedulablePodsDuration = 5 * time.Minute
	// DefaultRestartDelay is how long the scheduler process is down after
	// it exited on losing its leadership (klog.Fatal in OnStoppedLeading),
	// before its kubelet has restarted it: the kubelet restarts a container
	// that exited for the first time without a crash-loop backoff, on its
	// next pod sync, about a second later.
	DefaultRestartDelay = 1 * time.Second
	// DefaultAssumedPodTTL is how long an assumed pod whose binding
	// finished stays assumed without the informer confirming it: 0, never
	// expire, as durationToExpireAssumedPod since Kubernetes 1.23 (issue
	// 106361; older releases used 30 s).
	DefaultAssumedPodTTL = 0
)

// Intervals of the real scheduling queue and cache sync, not configurable
// in kube-scheduler either.
const (
	// backoffFlushInterval: flushBackoffQCompleted runs every second.
	backoffFlushInterval = 1 * time.Second
	// UnschedulableFlushInterval is how often flushUnschedulablePodsLeftover
	// runs: every 30 s.
	UnschedulableFlushInterval = 30 * time.Second
	// assumedCleanupInterval: cleanAssumedPeriod, the cache's expiry scan.
	assumedCleanupInterval = 1 * time.Second
	// cacheSyncPollInterval: cache.WaitForCacheSync polls every 100 ms.
	cacheSyncPollInterval = 100 * time.Millisecond
)

// Config configures a kube-scheduler replica. The zero value (with
// Servers) is the real default: leader election on the Lease
// kube-system/kube-scheduler with 15/10/2 s, the default profile's queue
// backoffs.
type Config struct {
	// Name is the replica's identity (its leader election holder identity,
	// the Scheduler of spoketrace.Bound) and its client's trace name;
	// default the host's name.
	Name string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// SchedulerName is the profile's name: only pods whose
	// spec.schedulerName is it (or empty) are scheduled. Default
	// "default-scheduler".
	SchedulerName string
	// DisableLeaderElection runs the scheduler at once, without a Lease
	// (kube-scheduler --leader-elect=false); leader election is on by
	// default, as in kube-scheduler.
	DisableLeaderElection bool
	// LeaseName is the leader election Lease in kube-system; default
	// "kube-scheduler".
	LeaseName string
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s
	// and 2 s (kube-scheduler's --leader-elect-* defaults).
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// RestartDelay is how long the process stays down after exiting on a
	// lost leadership; default DefaultRestartDelay.
	RestartDelay time.Duration
	// PodInitialBackoff and PodMaxBackoff bound the per-pod backoff;
	// defaults 1 s and 10 s.
	PodInitialBackoff time.Duration
	PodMaxBackoff     time.Duration
	// PodMaxInUnschedulablePodsDuration bounds how long an unschedulable
	// pod waits for a cluster event; default 5 min.
	PodMaxInUnschedulablePodsDuration time.Duration
	// AssumedPodTTL, when positive, expires an assumed pod that long after
	// its binding finished if the informer has not shown it bound by then.
	// Default 0: never (the real default since 1.23).
	AssumedPodTTL time.Duration
	// Ablations are the run's ablation switches: the scheduler asks for
	// ablation.SchedulerIgnoresAssumed, and hands them to its leader
	// elector.
	Ablations ablation.Set
}

// withDefaults fills zero fields.
func (cfg Config) withDefaults(h *sim.Host) Config {
	cfg.Name = defaults.HostName(cfg.Name, h)
	cfg.SchedulerName = cmp.Or(cfg.SchedulerName, model.DefaultSchedulerName)
	cfg.LeaseName = cmp.Or(cfg.LeaseName, DefaultLeaseName)
	cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = leaderelection.WithDefaultTimes(cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod)
	defaults.Positive(&cfg.RestartDelay, DefaultRestartDelay)
	defaults.Positive(&cfg.PodInitialBackoff, DefaultPodInitialBackoff)
	defaults.Positive(&cfg.PodMaxBackoff, DefaultPodMaxBackoff)
	defaults.Positive(&cfg.PodMaxInUnschedulablePodsDuration, DefaultPodMaxInUnschedulablePodsDuration)
	return cfg
}
