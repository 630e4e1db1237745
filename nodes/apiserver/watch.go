package apiserver

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// watcher is one watch stream served from a cache: its events go as
// one-way messages to the caller's host and port, numbered from 1.
type watcher struct {
	c         *cache
	to        sim.HostID
	port      string
	id        uint64
	seq       uint64
	prefix    string // the namespace's (or resource's) key prefix
	sel       model.Selector
	bookmarks bool
	// nextBookmark is when the watch is due its next bookmark.
	nextBookmark sim.Time
}

// watch serves a watch: it waits until the cache has the start revision,
// acknowledges with 200 and streams: synthetic ADDED events for "" and
// "0", or every event after the revision, or one ERROR 410 event when the
// revision has left the cache's window.
func (s *Server) watch(c *call) {
	req := c.req
	if req.WatchPort == "" {
		c.fail(badRequest("a watch needs a WatchPort"))
		return
	}
	sel, err := model.ParseSelector(req.LabelSelector)
	if err != nil {
		c.fail(badRequest("unable to parse requirement: %v", err))
		return
	}
	var from int64
	synthetic := req.ResourceVersion == "" || req.ResourceVersion == "0"
	if !synthetic {
		v, ok := parseRV(req.ResourceVersion)
		if !ok {
			c.fail(badRequest("invalid resourceVersion %q", req.ResourceVersion))
			return
		}
		from = v
	}
	ch := s.caches[c.res.Name]
	if !ch.ready {
		// k8s.io/apiserver, pkg/storage/cacher/cacher.go, Watch: a cache
		// that is (re)initializing refuses at once with 429
		// (ResilientWatchCacheInitialization, GA in 1.34).
		c.fail(cacheNotReady())
		return
	}
	ch.waitFresh(from, func(st *apiwire.Status) {
		if st != nil {
			c.fail(st)
			return
		}
		if ch.findWatcher(c.q.From, req.WatchPort, req.WatchID) >= 0 {
			c.reply(&apiwire.Response{Status: statusOK, ResourceVersion: formatRV(ch.rev)}) // a duplicate request
			return
		}
		w := &watcher{c: ch, to: c.q.From, port: req.WatchPort, id: req.WatchID,
			prefix: listPrefix(c.res, req.Namespace), sel: sel, bookmarks: req.AllowWatchBookmarks}
		c.reply(&apiwire.Response{Status: statusOK, ResourceVersion: formatRV(ch.rev)})
		ch.serveWatch(w, synthetic, from)
	})
}

// serveWatch sends what a new watch needs before it joins the live stream.
func (ch *cache) serveWatch(w *watcher, synthetic bool, from int64) {
	switch {
	case synthetic:
		for _, obj := range ch.sortedObjects(w.prefix, w.sel) {
			w.send(apiwire.Added, obj)
		}
	case from < ch.oldestRV() && !ch.s.cfg.Ablations.Has(ablation.CacheNo410):
		ch.s.endStream(w, gone("too old resource version: %d (%d)", from, ch.oldestRV()+1))
		return
	default:
		for i := range ch.events.len() {
			if e := ch.events.at(i); e.rev > from {
				w.deliver(e)
			}
		}
	}
	w.nextBookmark = ch.s.h.Now().Add(ch.s.cfg.BookmarkFrequency)
	ch.watchers = append(ch.watchers, w)
}

// deliver sends e to the watch if it concerns it. An object that stops (or
// starts) matching the label selector is sent as DELETED (or ADDED), as
// the real cacher does.
func (w *watcher) deliver(e *cacheEvent) {
	if !hasPrefix(e.key, w.prefix) {
		return
	}
	cur := w.sel.Matches(e.obj.GetObjectMeta().Labels)
	old := e.prev != nil && w.sel.Matches(e.prev.GetObjectMeta().Labels)
	switch e.typ {
	case apiwire.Added:
		if cur {
			w.send(apiwire.Added, e.obj)
		}
	case apiwire.Deleted:
		if cur {
			w.send(apiwire.Deleted, e.obj)
		}
	case apiwire.Modified:
		switch {
		case cur && old:
			w.send(apiwire.Modified, e.obj)
		case cur:
			w.send(apiwire.Added, e.obj)
		case old:
			gone := e.prev.DeepCopyObject()
			gone.GetObjectMeta().ResourceVersion = formatRV(e.rev)
			w.send(apiwire.Deleted, gone)
		}
	}
}

// send sends one event carrying a copy of obj.
func (w *watcher) send(typ apiwire.EventType, obj model.Object) {
	cp := obj.DeepCopyObject()
	w.emit(&apiwire.WatchEvent{Type: typ, Object: cp, ResourceVersion: cp.GetObjectMeta().ResourceVersion})
}

// emit numbers and sends one message of the stream.
func (w *watcher) emit(ev *apiwire.WatchEvent) {
	w.seq++
	ev.WatchID, ev.Seq, ev.Server = w.id, w.seq, w.c.s.cfg.Name
	w.c.s.h.Send(w.to, w.port, ev)
}

// bookmarkTick is how often the cache looks for watches due a bookmark
// (k8s.io/apiserver, pkg/storage/cacher/cacher.go, dispatchEvents: its
// bookmarkTimer of about a second).
const bookmarkTick = time.Second

// sendBookmarks sends a BOOKMARK with the cache's revision to every watch
// that allows them and is due one: BookmarkFrequency after it started or
// after its last bookmark, as the real cacher's nextBookmarkTime (its
// watches without a deadline; cache_watcher.go). Every event up to that
// revision has been sent.
func (ch *cache) sendBookmarks() {
	if !ch.ready {
		return
	}
	now := ch.s.h.Now()
	rv := formatRV(ch.rev)
	for _, w := range ch.watchers {
		if w.bookmarks && now >= w.nextBookmark {
			obj := ch.res.New()
			obj.GetObjectMeta().ResourceVersion = rv
			w.emit(&apiwire.WatchEvent{Type: apiwire.Bookmark, Object: obj, ResourceVersion: rv})
			w.nextBookmark = now.Add(ch.s.cfg.BookmarkFrequency)
		}
	}
}

// terminateAllWatchers closes every watch of the cache cleanly, as the
// real Cacher's terminateAllWatchers does before it relists: each client
// sees its response end and resumes from its last resourceVersion.
func (ch *cache) terminateAllWatchers() {
	for _, w := range ch.watchers {
		ch.s.closeStream(w)
	}
	ch.watchers = nil
}

// findWatcher returns the index of the watch id of host to on port, or
// -1. A stream is known by all three, as a real one by its connection: a
// restarted process (the kubelet's, say) watches from a new port, and its
// stream IDs start again, while its predecessor's streams may live on
// until the server learns that their connection died.
func (ch *cache) findWatcher(to sim.HostID, port string, id uint64) int {
	for i, w := range ch.watchers {
		if w.to == to && w.port == port && w.id == id {
			return i
		}
	}
	return -1
}

// cancelWatch ends the caller's watch WatchID, wherever it is; for a
// stream the server already ended, it acknowledges the final frame.
func (s *Server) cancelWatch(c *call) {
	if s.forgetClosing(c.q.From, c.req.WatchPort, c.req.WatchID) {
		c.reply(&apiwire.Response{Status: statusOK})
		return
	}
	for _, ch := range s.order {
		if i := ch.findWatcher(c.q.From, c.req.WatchPort, c.req.WatchID); i >= 0 {
			ch.watchers = append(ch.watchers[:i], ch.watchers[i+1:]...)
			c.reply(&apiwire.Response{Status: statusOK})
			return
		}
	}
	c.fail(errStatus(404, apiwire.ReasonNotFound, "%s", fmt.Sprintf("watch %d not found", c.req.WatchID)))
}
