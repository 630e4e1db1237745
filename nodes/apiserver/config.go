package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/sim"
)

// Defaults, as the real kube-apiserver's where it has one.
const (
	// DefaultWatchCacheWindow is how much history a watch cache keeps:
	// kube-apiserver's watch cache holds about 75 s of events.
	DefaultWatchCacheWindow = 75 * time.Second
	// DefaultEtcdRequestTimeout bounds each etcd request (the etcd client's
	// request timeout).
	DefaultEtcdRequestTimeout = 5 * time.Second
	// DefaultBookmarkInterval is how often a watch that allows bookmarks
	// gets one (see the package documentation for why it is not a minute).
	DefaultBookmarkInterval = time.Second
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
	// Name is the replica's name, in responses and the trace; empty means
	// the host's name.
	Name string
	// Etcd lists the etcd members' hosts, tried in order with failover.
	Etcd []sim.HostID
	// WatchCacheWindow is how long the watch cache keeps events. Default
	// 75 s.
	WatchCacheWindow time.Duration
	// EtcdRequestTimeout bounds every etcd request. Default 5 s.
	EtcdRequestTimeout time.Duration
	// BookmarkInterval is how often bookmarks are sent. Default 1 s.
	BookmarkInterval time.Duration
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
	// Ablations are the run's ablation switches; off in the zero value.
	Ablations ablation.Set
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
	if c.Name == "" {
		c.Name = h.Name()
	}
	if c.WatchCacheWindow <= 0 {
		c.WatchCacheWindow = DefaultWatchCacheWindow
	}
	if c.EtcdRequestTimeout <= 0 {
		c.EtcdRequestTimeout = DefaultEtcdRequestTimeout
	}
	if c.BookmarkInterval <= 0 {
		c.BookmarkInterval = DefaultBookmarkInterval
	}
	if c.FreshnessTimeout <= 0 {
		c.FreshnessTimeout = DefaultFreshnessTimeout
	}
	if c.CompactionInterval == 0 {
		c.CompactionInterval = c.CompactionEvery()
	}
	if c.CacheProgressInterval <= 0 {
		c.CacheProgressInterval = DefaultCacheProgressInterval
	}
	return c
}
