package apiserver

import (
	"cmp"
	"net/netip"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Defaults, as the real kube-apiserver's where it has one.
const (
	// DefaultEventFreshDuration is how much history a watch cache tries
	// to keep: its ring grows while even its oldest event is younger, and
	// shrinks once its newest quarter is older (k8s.io/apiserver,
	// pkg/storage/cacher/watch_cache.go, eventFreshDuration: the bookmark
	// frequency plus 15 s).
	DefaultEventFreshDuration = 75 * time.Second
	// DefaultWatchCacheMinCapacity and DefaultWatchCacheMaxCapacity bound
	// the ring of events of a watch cache (watch_cache.go,
	// defaultLowerBoundCapacity and defaultUpperBoundCapacity).
	DefaultWatchCacheMinCapacity = 100
	DefaultWatchCacheMaxCapacity = 100 * 1024
	// DefaultEtcdRequestTimeout bounds each etcd request (the etcd client's
	// request timeout).
	DefaultEtcdRequestTimeout = 5 * time.Second
	// DefaultBookmarkFrequency is how long a watch that allows bookmarks
	// waits for its next one: about a minute (k8s.io/apiserver,
	// pkg/storage/cacher/cacher.go, defaultBookmarkFrequency; the cacher
	// looks for watches due one every second, bookmarkTimer).
	DefaultBookmarkFrequency = time.Minute
	// DefaultFreshnessTimeout is how long a read or watch at a
	// resourceVersion newer than the cache waits for the cache to catch up
	// before failing with 504 "Too large resource version" (the cacher's
	// blockTimeout, 3 s).
	DefaultFreshnessTimeout = 3 * time.Second
	// DefaultCacheProgressInterval is how often a watch cache asks its etcd
	// member for a progress notification; after three silent intervals it
	// re-watches on another member.
	DefaultCacheProgressInterval = time.Second
	// DefaultCompactionInterval is kube-apiserver's
	// --etcd-compaction-interval.
	DefaultCompactionInterval = 5 * time.Minute
)

// Config configures one API server replica.
type Config struct {
	// Resources is the registry of the kinds the replica serves: nil for
	// the built-in kinds alone, or model.NewRegistry's result with custom
	// kinds after them. Every replica of a cluster must be given the same
	// registry (a real cluster's CustomResourceDefinitions are stored
	// objects every replica sees). Each kind gets a watch cache, in the
	// registry's order.
	Resources *model.Registry
	// Name is the replica's name, in responses and the trace; empty means
	// the host's name.
	Name string
	// Etcd lists the etcd members' hosts, tried in order with failover.
	Etcd []sim.HostID
	// EventFreshDuration is how much history the watch cache's ring sizes
	// itself for. Default 75 s.
	EventFreshDuration time.Duration
	// WatchCacheMinCapacity and WatchCacheMaxCapacity bound the ring.
	// Defaults 100 and 102,400.
	WatchCacheMinCapacity, WatchCacheMaxCapacity int
	// EtcdRequestTimeout bounds every etcd request. Default 5 s.
	EtcdRequestTimeout time.Duration
	// BookmarkFrequency is how long a watch that allows bookmarks waits
	// for its next one. Default 1 min.
	BookmarkFrequency time.Duration
	// FreshnessTimeout is how long a read at a too new resourceVersion
	// waits for the cache. Default 3 s.
	FreshnessTimeout time.Duration
	// CacheProgressInterval is how often the cache checks its etcd watch.
	// Default 1 s.
	CacheProgressInterval time.Duration
	// CompactionInterval is how often the replica compacts etcd's history
	// (coordinated with the other replicas through compact_rev_key).
	// Default 5 min; negative disables compaction.
	CompactionInterval time.Duration
	// Policy is the authorization policy, as roles and bindings; nil
	// means rbac.Default(), the control plane's identities. Kubelets are
	// authorized by code (the Node authorizer and NodeRestriction) before
	// it. The server only reads it: share one among replicas, and do not
	// change it once the world runs.
	Policy *rbac.Policy
	// ServiceCIDR is the range Services' cluster IPs are allocated from
	// (--service-cluster-ip-range, IPv4). Default DefaultServiceCIDR.
	ServiceCIDR netip.Prefix
	// DefaultNotReadyTolerationSeconds and
	// DefaultUnreachableTolerationSeconds are the DefaultTolerationSeconds
	// admission plugin's flags (--default-not-ready-toleration-seconds,
	// --default-unreachable-toleration-seconds): how long a pod created
	// without its own tolerations of the not-ready and unreachable
	// NoExecute taints stays on a lost node. Default 300 each
	// (model.DefaultNotReadyTolerationSeconds); operators lower them for a
	// faster failover.
	DefaultNotReadyTolerationSeconds, DefaultUnreachableTolerationSeconds int64
	// Ablations are the run's ablation switches; off in the zero value.
	Ablations ablation.Set
	// Decoded, when set, is shared by the replicas of one world so that a
	// stored value is decoded once for all their watch caches (NewDecoded);
	// nil means each replica decodes for itself. Either way the replicas
	// behave the same.
	Decoded *Decoded
}

// CompactionEvery is how often a replica of this configuration compacts
// etcd: CompactionInterval, kube-apiserver's default when that is 0, and 0
// (never) when it is negative.
func (c Config) CompactionEvery() time.Duration {
	switch {
	case c.CompactionInterval < 0:
		return 0
	case c.CompactionInterval == 0:
		return DefaultCompactionInterval
	}
	return c.CompactionInterval
}

// withDefaults fills zero fields.
func (c Config) withDefaults(h *sim.Host) Config {
	c.Name = defaults.HostName(c.Name, h)
	defaults.Positive(&c.EventFreshDuration, DefaultEventFreshDuration)
	defaults.Positive(&c.WatchCacheMinCapacity, DefaultWatchCacheMinCapacity)
	if c.WatchCacheMaxCapacity < c.WatchCacheMinCapacity {
		c.WatchCacheMaxCapacity = max(DefaultWatchCacheMaxCapacity, c.WatchCacheMinCapacity)
	}
	defaults.Positive(&c.EtcdRequestTimeout, DefaultEtcdRequestTimeout)
	defaults.Positive(&c.BookmarkFrequency, DefaultBookmarkFrequency)
	defaults.Positive(&c.FreshnessTimeout, DefaultFreshnessTimeout)
	c.CompactionInterval = cmp.Or(c.CompactionInterval, DefaultCompactionInterval)
	if c.Policy == nil {
		c.Policy = rbac.Default()
	}
	if c.DefaultNotReadyTolerationSeconds <= 0 {
		c.DefaultNotReadyTolerationSeconds = model.DefaultNotReadyTolerationSeconds
	}
	if c.DefaultUnreachableTolerationSeconds <= 0 {
		c.DefaultUnreachableTolerationSeconds = model.DefaultUnreachableTolerationSeconds
	}
	defaults.Positive(&c.CacheProgressInterval, DefaultCacheProgressInterval)
	if !c.ServiceCIDR.IsValid() || !c.ServiceCIDR.Addr().Is4() {
		c.ServiceCIDR = DefaultServiceCIDR
	}
	return c
}
