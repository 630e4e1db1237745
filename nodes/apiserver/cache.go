package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiwire"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
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
// a window of recent events, and the watches served from it. The reflector
// that feeds it from etcd is in reflector.go.
type cache struct {
	s      *Server
	res    resourceInfo
	prefix string
	client *etcd.Client // shared by the replica's caches: an etcd member tells watches apart by host and stream

	store map[string]model.Object // by storage key; objects carry their resourceVersion
	// events holds every event with a revision above windowStart, oldest
	// first, none older than the window.
	events      []cacheEvent
	windowStart int64
	rev         int64 // the revision the cache reflects
	ready       bool  // the first list has completed

	// reflector state
	stream    uint64
	wh        *etcd.WatchHandle
	lastHeard sim.Time

	waiters  []*waiter
	watchers []*watcher
}

// newCache makes the cache of res; start begins filling it.
func newCache(s *Server, res resourceInfo) *cache {
	c := &cache{s: s, res: res, prefix: resourcePrefix(res), store: make(map[string]model.Object), client: s.cacheEtcd}
	return c
}

// start lists, then watches.
func (c *cache) start() { c.list() }

// add records an event, dispatches it to the watches and wakes readers.
func (c *cache) add(e cacheEvent) {
	c.events = append(c.events, e)
	c.rev = max(c.rev, e.rev)
	for _, w := range c.watchers {
		w.deliver(&e)
	}
}

// trim drops events older than the window, whole revisions at a time.
func (c *cache) trim() {
	cutoff := c.s.h.Now().Add(-c.s.cfg.WatchCacheWindow)
	i := 0
	for i < len(c.events) && c.events[i].at < cutoff {
		i++
	}
	for i > 0 && i < len(c.events) && c.events[i].rev == c.events[i-1].rev {
		i++
	}
	if i == 0 {
		return
	}
	c.windowStart = c.events[i-1].rev
	// Shift in place: the array is reused, and the dropped tail cleared so
	// that the objects it held can be collected.
	n := copy(c.events, c.events[i:])
	clear(c.events[n:])
	c.events = c.events[:n]
}

// oldestRV is the oldest resourceVersion a watch can start from.
func (c *cache) oldestRV() int64 { return c.windowStart }

// sortedObjects returns the current objects under prefix that match sel,
// in key order.
func (c *cache) sortedObjects(prefix string, sel model.Selector) []model.Object {
	var out []model.Object
	for _, k := range sim.SortedKeys(c.store) {
		if !hasPrefix(k, prefix) {
			continue
		}
		if obj := c.store[k]; sel.Matches(obj.GetObjectMeta().Labels) {
			out = append(out, obj)
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
