package kubeproxy

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Real kube-proxy defaults (KubeProxyConfiguration and the iptables
// proxier's constants).
const (
	// DefaultMinSyncPeriod is --iptables-min-sync-period: syncs run at most
	// once a second, modulo bursts (1 s).
	DefaultMinSyncPeriod = time.Second
	// DefaultSyncPeriod is --iptables-sync-period (30 s). The iptables
	// proxier does not sync on it: it is the period of the canary check
	// that resyncs when something else flushed the kernel's rules, and the
	// retry delay of a failed sync, neither of which happens here.
	DefaultSyncPeriod = 30 * time.Second
	// DefaultMaxSyncInterval is the maxInterval the iptables proxier gives
	// its BoundedFrequencyRunner: a sync at least once an hour ("time.Hour
	// is arbitrary", since syncPeriod went to the canary check).
	DefaultMaxSyncInterval = time.Hour
	// BurstSyncs is the runner's burst: two syncs may follow each other at
	// once before the minimum period applies (burstSyncs).
	BurstSyncs = 2
	// DefaultDisconnectTimeout is how long the kube-proxy-flush-on-disconnect
	// ablation waits for an answer from the API server (and how often it
	// asks) before it drops every rule. It has no real counterpart.
	DefaultDisconnectTimeout = 10 * time.Second
)

// Names of kube-proxy on its host and in the API.
const (
	// Process is kube-proxy's process name on its host. A host that boots
	// kube-proxy declares it in sim.HostSpec.Processes, so that a
	// restart-process fault can restart it.
	Process = "kube-proxy"
	// ExposeName is the name under which Boot exposes the host's *Proxy.
	ExposeName = "kube-proxy"
	// User is kube-proxy's identity: the node-proxier RBAC role's subject.
	User = "system:kube-proxy"
)

// The labels kube-proxy's informers exclude (pkg/proxy/apis
// well_known_labels.go and corev1.IsHeadlessService): a Service that asks
// for another proxy, and the slices of headless Services.
const (
	LabelServiceProxyName = model.LabelServiceProxyName
	LabelHeadless         = model.LabelHeadless
)

// Config configures a node's kube-proxy. Zero timing fields take the real
// defaults.
type Config struct {
	// Node is the node's name; default: the host's name.
	Node string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// Ablations are the run's ablation switches; kube-proxy asks for
	// ablation.ProxyIgnoresReadiness and ablation.ProxyFlushOnDisconnect.
	Ablations ablation.Set

	// MinSyncPeriod is --iptables-min-sync-period (1 s).
	MinSyncPeriod time.Duration
	// SyncPeriod is --iptables-sync-period (30 s); see DefaultSyncPeriod.
	SyncPeriod time.Duration
	// MaxSyncInterval is the runner's maxInterval (1 h).
	MaxSyncInterval time.Duration
	// DisconnectTimeout is the flush-on-disconnect ablation's check
	// period and timeout (10 s).
	DisconnectTimeout time.Duration
}

func (cfg Config) withDefaults(h *sim.Host) Config {
	cfg.Node = defaults.HostName(cfg.Node, h)
	defaults.Positive(&cfg.MinSyncPeriod, DefaultMinSyncPeriod)
	defaults.Positive(&cfg.SyncPeriod, DefaultSyncPeriod)
	defaults.Positive(&cfg.MaxSyncInterval, DefaultMaxSyncInterval)
	defaults.Positive(&cfg.DisconnectTimeout, DefaultDisconnectTimeout)
	cfg.MaxSyncInterval = max(cfg.MaxSyncInterval, cfg.MinSyncPeriod)
	return cfg
}
