package apiserver

import (
	"errors"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Reflector timings.
const (
	// relistBackoff is the pause before listing again after a failed list.
	relistBackoff = time.Second
	// RewatchBackoff is the pause before re-watching after a broken stream,
	// or after "no leader" (the real reflector re-watches at once).
	RewatchBackoff = 100 * time.Millisecond
	// silentIntervals is how many progress intervals without any response
	// make the cache give up on its etcd member.
	silentIntervals = 3
	// reinitPeriod is how long a cache whose etcd watch was cancelled
	// waits before it starts over: the real Cacher runs startCaching under
	// wait.Until with a period of one second (k8s.io/apiserver,
	// pkg/storage/cacher/cacher.go, NewCacherFromConfig).
	reinitPeriod = time.Second
)

// list reads every object of the resource (a quorum read: the cacher's
// listerWatcher passes no resourceVersion to storage), replaces the cache's
// contents, opens its window at the list's revision and watches from there.
func (c *cache) list() {
	c.wh = nil
	c.stream++
	stream := c.stream
	c.client.Get(c.prefix, etcd.GetOptions{End: prefixEnd(c.prefix)}, func(r etcd.GetResult, err error) {
		if stream != c.stream {
			return
		}
		if err != nil {
			c.client.NextEndpoint()
			c.s.h.After(relistBackoff, "apiserver-relist", func() {
				if stream == c.stream {
					c.list()
				}
			})
			return
		}
		store := make(map[string]model.Object, len(r.KVs))
		for _, kv := range r.KVs {
			if obj, err := c.s.cfg.Decoded.decode(kv); err == nil {
				store[string(kv.Key)] = obj
			}
		}
		c.store = store
		c.retry = internalErrorRetry{} // a new ListAndWatch
		c.events.clear()
		c.listRev, c.removed = r.Revision, false
		c.rev = r.Revision
		c.ready = true
		c.open(r.Revision + 1)
		c.wake()
	})
}

// open watches the resource's prefix from startRev on the client's current
// etcd member.
func (c *cache) open(startRev int64) {
	c.stream++
	stream := c.stream
	c.lastHeard = c.s.h.Now()
	c.wh = c.client.Watch(etcd.WatchRequest{Key: c.prefix, End: prefixEnd(c.prefix), StartRev: startRev, ProgressNotify: true},
		func(r etcd.WatchResponse) { c.receive(stream, r) })
}

// handleResp applies one etcd watch response of the current stream.
func (c *cache) handleResp(stream uint64, r etcd.WatchResponse) {
	if stream != c.stream || c.wh == nil {
		return
	}
	switch {
	case r.Err != nil && errors.Is(r.Err, etcd.ErrNoLeader):
		// The API server's etcd watches require a leader: a member that
		// lost its leader ends them with "etcdserver: no leader"
		// (k8s.io/apiserver, pkg/storage/etcd3/watcher.go, startWatching:
		// clientv3.WithRequireLeader and sendError), which reaches the
		// Cacher's reflector as an internal error. It watches again from
		// its last revision, the cache staying ready and its watches
		// open, for up to 30 s of such errors (retry.go); only then does
		// ListAndWatch return and the cache start over as after a
		// compaction. The real reflector re-watches at once; kubesim
		// pauses RewatchBackoff between attempts on leaderless members.
		now := c.s.h.Now()
		c.retry.after(now)
		if c.retry.shouldRetry(now) {
			c.rewatchLater()
			return
		}
		c.client.NextEndpoint()
		c.reinit(0)
		return
	case r.Err != nil:
		// A broken stream or a restarted member: clientv3 reconnects and
		// resumes the watch from its last revision by itself.
		c.rewatchLater()
		return
	case r.Canceled:
		c.reinit(r.CompactRevision)
		return
	}
	c.lastHeard = c.s.h.Now()
	base := c.rev
	for _, ev := range r.Events {
		c.apply(ev, base)
	}
	if r.Progress {
		c.advance(r.Revision)
		return
	}
	c.wake()
}

// reinit starts the cache over after etcd cancelled its watch because the
// revision it resumes from was compacted (the real etcd3 watcher turns that
// into 410 "The resourceVersion for the provided watch is too old"). As the
// real Cacher: the reflector's ListAndWatch returns, so startCaching's
// deferred ready.set(false) makes the cache unready (reads and watches
// that need it wait); a second later (reinitPeriod) startCaching runs
// again: terminateAllWatchers closes every watch served from the cache
// cleanly, and ListAndWatch lists anew. A client that resumes from a
// revision older than that list then gets 410 Gone from the cache's window
// and relists. (k8s.io/apiserver, pkg/storage/cacher/cacher.go,
// startCaching; client-go, tools/cache/reflector.go, watch: an expired
// watch returns from ListAndWatch.)
func (c *cache) reinit(compactRev int64) {
	if compactRev > 0 && c.s.cfg.Ablations.Has(ablation.CacheResumePastCompaction) {
		// The ablation: carry on from the compact revision, as if nothing
		// had been lost in between.
		c.open(max(compactRev, c.rev+1))
		return
	}
	c.wh = nil
	c.stream++
	stream := c.stream
	c.ready = false
	c.s.h.After(reinitPeriod, "apiserver-cache-reinit", func() {
		if stream != c.stream {
			return
		}
		if !c.s.cfg.Ablations.Has(ablation.CacheRelistKeepsWatchers) {
			c.terminateAllWatchers()
		}
		c.list()
	})
}

// rewatchLater resumes on the next etcd member after a short pause.
func (c *cache) rewatchLater() {
	c.wh = nil
	c.stream++
	stream := c.stream
	c.client.NextEndpoint()
	c.s.h.After(RewatchBackoff, "apiserver-rewatch", func() {
		if stream == c.stream {
			c.open(c.rev + 1)
		}
	})
}

// handleTick asks the etcd member for progress and re-watches elsewhere
// when it has been silent too long.
func (c *cache) handleTick() {
	if c.wh == nil {
		return
	}
	interval := c.s.cfg.CacheProgressInterval
	quiet := c.s.h.Now().Sub(max(c.lastHeard, c.wh.Alive()))
	switch {
	case quiet >= silentIntervals*interval:
		c.wh.Cancel()
		c.rewatchLater()
	case quiet >= interval:
		c.wh.RequestProgress()
	}
}

// apply turns one etcd event into a cache event, unless the cache already
// reflects its revision (base is the cache's revision before the response).
func (c *cache) apply(ev mvcc.Event, base int64) {
	key, rev := string(ev.Kv.Key), ev.Kv.ModRevision
	if rev <= base {
		return
	}
	prev := c.store[key]
	e := cacheEvent{key: key, prev: prev, rev: rev, at: c.s.h.Now()}
	switch ev.Type {
	case mvcc.EventPut:
		obj, err := c.s.cfg.Decoded.decode(ev.Kv)
		if err != nil {
			return
		}
		e.typ, e.obj = apiwire.Modified, obj
		if prev == nil {
			e.typ = apiwire.Added
		}
		c.store[key] = obj
	case mvcc.EventDelete:
		if prev == nil {
			return
		}
		c.s.cfg.Decoded.forget(key, rev)
		obj := prev.DeepCopyObject()
		obj.GetObjectMeta().ResourceVersion = formatRV(rev)
		e.typ, e.obj = apiwire.Deleted, obj
		delete(c.store, key)
	}
	c.add(e)
}
