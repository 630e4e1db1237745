package kubelet

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Real kubelet defaults (KubeletConfiguration and the kubelet's constants).
const (
	// DefaultNodeLeaseDuration is nodeLeaseDurationSeconds: 40 s.
	DefaultNodeLeaseDuration = 40 * time.Second
	// NodeLeaseRenewIntervalFraction: the lease is renewed every 25% of
	// its duration (kubelet's nodeLeaseRenewIntervalFraction), so 10 s.
	NodeLeaseRenewIntervalFraction = 0.25
	// DefaultNodeStatusUpdateFrequency is nodeStatusUpdateFrequency: 10 s.
	DefaultNodeStatusUpdateFrequency = 10 * time.Second
	// DefaultNodeStatusReportFrequency is nodeStatusReportFrequency: the
	// status is posted at least this often even when unchanged (5 min).
	DefaultNodeStatusReportFrequency = 5 * time.Minute
	// DefaultSyncFrequency is syncFrequency: every pod is synced at least
	// once a minute.
	DefaultSyncFrequency = time.Minute
	// DefaultStatusSyncPeriod is the status manager's syncPeriod (10 s):
	// how often it reconciles every pod's status with the API server.
	DefaultStatusSyncPeriod = 10 * time.Second
	// DefaultHousekeepingPeriod is the kubelet's housekeepingPeriod (2 s):
	// how often it kills containers of pods the API server no longer has.
	DefaultHousekeepingPeriod = 2 * time.Second
	// DefaultBackoffInitial and DefaultBackoffMax are the CrashLoopBackOff
	// bounds: 10 s (backOffPeriod) doubling to 5 min (MaxContainerBackOff).
	DefaultBackoffInitial = 10 * time.Second
	DefaultBackoffMax     = 300 * time.Second
)

// Config configures a kubelet. Zero timing fields take the real defaults.
type Config struct {
	// Node is the node's name; default: the host's name.
	Node string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Capacity is the node's capacity and allocatable; default cpu 4,
	// memory 16Gi, pods 110 (the kubelet's maxPods default).
	Capacity model.ResourceList
	// Ablations are the run's ablation switches; off by default.
	Ablations ablation.Set

	// LeaseDuration is the node Lease's leaseDurationSeconds (40 s).
	LeaseDuration time.Duration
	// RenewInterval is how often the Lease is renewed (25% of
	// LeaseDuration: 10 s).
	RenewInterval time.Duration
	// NodeStatusUpdateFrequency is how often the node status is computed
	// (10 s).
	NodeStatusUpdateFrequency time.Duration
	// NodeStatusReportFrequency is how often it is posted when unchanged
	// (5 min).
	NodeStatusReportFrequency time.Duration
	// SyncFrequency is the periodic sync of every pod (1 min).
	SyncFrequency time.Duration
	// StatusSyncPeriod is the status manager's reconcile period (10 s).
	StatusSyncPeriod time.Duration
	// HousekeepingPeriod is the orphan clean-up period (2 s).
	HousekeepingPeriod time.Duration
	// BackoffInitial and BackoffMax bound CrashLoopBackOff (10 s, 300 s).
	BackoffInitial time.Duration
	BackoffMax     time.Duration
}

// defaultCapacity is cpu 4, memory 16Gi, pods 110.
func defaultCapacity() model.ResourceList {
	return model.ResourceListOf("cpu", "4", "memory", "16Gi", "pods", "110")
}

func (cfg Config) withDefaults(h *sim.Host) Config {
	cfg.Node = defaults.HostName(cfg.Node, h)
	if cfg.Capacity == nil {
		cfg.Capacity = defaultCapacity()
	}
	cfg.Capacity = cfg.Capacity.DeepCopy()
	defaults.Positive(&cfg.LeaseDuration, DefaultNodeLeaseDuration)
	defaults.Positive(&cfg.RenewInterval, time.Duration(float64(cfg.LeaseDuration)*NodeLeaseRenewIntervalFraction))
	defaults.Positive(&cfg.NodeStatusUpdateFrequency, DefaultNodeStatusUpdateFrequency)
	defaults.Positive(&cfg.NodeStatusReportFrequency, DefaultNodeStatusReportFrequency)
	defaults.Positive(&cfg.SyncFrequency, DefaultSyncFrequency)
	defaults.Positive(&cfg.StatusSyncPeriod, DefaultStatusSyncPeriod)
	defaults.Positive(&cfg.HousekeepingPeriod, DefaultHousekeepingPeriod)
	defaults.Positive(&cfg.BackoffInitial, DefaultBackoffInitial)
	defaults.Positive(&cfg.BackoffMax, DefaultBackoffMax)
	return cfg
}

// ExposeName is the name under which Boot exposes the host's *Kubelet.
const ExposeName = "kubelet"

// Process is the kubelet process's name on its host. A host that boots a
// kubelet declares it in sim.HostSpec.Processes, so that a restart-process
// fault can restart it (`systemctl restart kubelet`).
const Process = "kubelet"
