package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// cacheEvent is one change the watch cache saw: the object after the change
// (for a deletion, its last state with the deletion's revision) and before
// it (nil for an addition).
type cacheEvent struct {
	typ  apiwire.EventType
	key  string
	obj  model.Object
	prev model.Object
	rev  int64
	at   sim.Time
}

// cache is one resource's watch cache on one replica: the current objects,
// a ring of recent events, and the watches served from it. The reflector
// that feeds it from etcd is in reflector.go.
type cache struct {
	s      *Server
	res    resourceInfo
	prefix string
	client *etcd.Client // shared by the replica's caches: an etcd member tells watches apart by host and stream

	store map[string]model.Object // by storage key; objects carry their resourceVersion
	// events is the ring of recent events (ring.go), oldest first.
	events eventRing
	// listRev is the revision of the last list, and removed says whether
	// an event has left the ring since: together they give the oldest
	// revision a watch can resume from (oldestRV).
	listRev int64
	removed bool
	rev     int64 // the revision the cache reflects
	ready   bool  // the first list has completed

	// reflector state
	stream    uint64
	wh        *etcd.WatchHandle
	lastHeard sim.Time
	retry     internalErrorRetry // of the watch's "no leader" errors

	// behind are the etcd watch responses waiting while BUGGIFY keeps the
	// cache behind etcd (buggify.go, receive); nil when it is not.
	behind []heldResp

	waiters  []*waiter
	progress *sim.Timer // asks etcd for progress while readers wait (fresh.go)
	watchers []*watcher
}

// newCache makes the cache of res; start begins filling it.
func newCache(s *Server, res resourceInfo) *cache {
	c := &cache{s: s, res: res, prefix: resourcePrefix(res), store: make(map[string]model.Object), client: s.cacheEtcd}
	c.events.reset(s.cfg.WatchCacheMinCapacity)
	return c
}

// start lists, then watches.
func (c *cache) start() { c.list() }

// add records an event, dispatches it to the watches and wakes readers.
// The ring first resizes, then, when full, drops its oldest event, as the
// real watchCache.updateCache does.
func (c *cache) add(e cacheEvent) {
	if c.events.push(e, c.s.cfg.EventFreshDuration, c.s.cfg.WatchCacheMinCapacity, c.s.cfg.WatchCacheMaxCapacity) {
		c.removed = true
	}
	c.rev = max(c.rev, e.rev)
	last := c.events.at(c.events.len() - 1)
	for _, w := range c.watchers {
		w.deliver(last)
	}
}

// oldestRV is the oldest resourceVersion a watch can resume from: the
// last list's revision while no event has left the ring since, else the
// revision before the ring's oldest event (k8s.io/apiserver,
// pkg/storage/cacher/watch_cache.go, getAllEventsSinceLocked: a start
// revision below oldest-1 is 410 Gone).
func (c *cache) oldestRV() int64 {
	if !c.removed || c.events.len() == 0 {
		return c.listRev
	}
	return c.events.at(0).rev - 1
}

// sortedObjects returns the current objects under prefix that match sel,
// in key order.
func (c *cache) sortedObjects(prefix string, sel model.Selector) []model.Object {
	var out []model.Object
	for _, k := range c.keysUnder(prefix) {
		if obj := c.store[k]; sel.Matches(obj.GetObjectMeta().Labels) {
			out = append(out, obj)
		}
	}
	return out
}

// keysUnder returns the storage keys under prefix, in order.
func (c *cache) keysUnder(prefix string) []string {
	var out []string
	for _, k := range sim.SortedKeys(c.store) {
		if hasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}

// hasPrefix is strings.HasPrefix.
func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// advance moves the cache's revision forward (a progress notification) and
// wakes the readers waiting for it.
func (c *cache) advance(rev int64) {
	if rev > c.rev {
		c.rev = rev
	}
	c.wake()
}
