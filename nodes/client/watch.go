package client

import (
	"github.com/kubesim/kubesim/nodes/apiwire"
	"github.com/kubesim/kubesim/sim"
)

// WatchHandler receives a watch stream's events in order, each once. When
// the stream ends other than by Stop, it is called one last time with
// ev == nil and err set: a *StatusError for an ERROR event or a refused
// watch (IsGone: resume is impossible, relist), ErrWatchBroken for a lost
// message, ErrWatchIdle for a silent stream, ErrWatchClosed for a stream the
// server closed cleanly, ErrNoAnswer when the watch
// request got no answer. Nothing follows.
type WatchHandler func(ev *apiwire.WatchEvent, err error)

// Watcher is one watch stream on one API server replica, as
// watch.Interface. Its events arrive in order, each at most once; a lost
// message ends the stream, as a dropped connection would.
type Watcher struct {
	c       *Client
	id      uint64
	server  sim.HostID
	next    uint64 // Seq of the next event
	handler WatchHandler
	idle    *sim.Timer
	ended   bool
}

// Watch opens a watch on the load balancer's current replica. The handler
// is never called from within Watch.
func (r *ResourceClient) Watch(opts ListOptions, handler WatchHandler) *Watcher {
	c := r.c
	c.watchID++
	w := &Watcher{c: c, id: c.watchID, server: c.Server(), next: 1, handler: handler}
	if w.server == sim.NoHost {
		w.ended = true
		c.h.After(0, "api-watch-no-servers", func() { handler(nil, ErrNoServers) })
		return w
	}
	c.watches[w.id] = w
	w.idle = c.h.NewTimer("api-watch-idle", func() {
		c.failover(w.server)
		w.end(ErrWatchIdle)
	})
	w.idle.Reset(c.cfg.WatchIdleTimeout)
	req := &apiwire.Request{Verb: apiwire.VerbWatch, Resource: r.resource, Namespace: r.namespace,
		ResourceVersion: opts.ResourceVersion, LabelSelector: opts.LabelSelector,
		WatchPort: c.cfg.WatchPort, WatchID: w.id, AllowWatchBookmarks: opts.AllowWatchBookmarks}
	c.Do(req, func(_ *apiwire.Response, err error) {
		if err != nil {
			w.end(err)
		}
	})
	return w
}

// ID returns the stream's WatchID.
func (w *Watcher) ID() uint64 { return w.id }

// Server returns the replica serving the stream.
func (w *Watcher) Server() sim.HostID { return w.server }

// Ended reports whether the stream has ended or was stopped.
func (w *Watcher) Ended() bool { return w.ended }

// Stop ends the stream without calling the handler and asks the server to
// drop it.
func (w *Watcher) Stop() {
	if w.ended {
		return
	}
	w.close()
}

// end closes the stream and reports why.
func (w *Watcher) end(err error) {
	if w.ended {
		return
	}
	w.close()
	w.handler(nil, err)
}

// close forgets the stream and tells its server, if it still has it.
func (w *Watcher) close() {
	w.ended = true
	if w.idle != nil {
		w.idle.Stop()
	}
	c := w.c
	delete(c.watches, w.id)
	req := &apiwire.Request{User: c.cfg.User, Verb: apiwire.VerbCancelWatch, WatchPort: c.cfg.WatchPort, WatchID: w.id}
	c.rpc.Call(w.server, apiwire.Port, req, c.cfg.Timeout, func(any, error) {})
}

// handleWatchEvent delivers a server's watch event to its stream, in
// sequence: a duplicate is ignored and a gap ends the stream.
func (c *Client) handleWatchEvent(m *sim.Message) {
	ev, ok := m.Payload.(*apiwire.WatchEvent)
	if !ok {
		return
	}
	w := c.watches[ev.WatchID]
	if w == nil || w.ended || m.From != w.server || ev.Seq < w.next {
		return
	}
	if ev.Seq > w.next {
		w.end(ErrWatchBroken)
		return
	}
	w.next++
	w.idle.Reset(c.cfg.WatchIdleTimeout)
	if ev.Type == apiwire.Closed {
		w.end(ErrWatchClosed)
		return
	}
	if ev.Type == apiwire.Error {
		st := apiwire.Status{Code: 500, Reason: apiwire.ReasonInternalError, Message: "watch error without status"}
		if ev.Status != nil {
			st = *ev.Status
		}
		w.end(NewStatusError(st, ev.Server))
		return
	}
	w.handler(ev, nil)
}
