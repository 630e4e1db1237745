package client

import (
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// WatchHandler receives a watch stream's events in order, each once. When
// the stream ends other than by Stop, it is called one last time with
// ev == nil and err set: a *StatusError for an ERROR event or a refused
// watch (IsGone: resume is impossible, relist), ErrWatchBroken for a lost
// message, ErrWatchIdle when the stream's connection died (wrapping
// ErrConnectionLost when it failed its health check, ErrConnectionReset
// when it was reset), ErrWatchClosed for a stream the server closed
// cleanly, an error for which IsNoAnswer is true when the watch request got
// no answer. Nothing follows.
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
	conn    *conn // the connection the stream travels on
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
	w.conn = c.connTo(w.server)
	req := &apiwire.Request{Verb: apiwire.VerbWatch, Resource: r.resource, Namespace: r.namespace,
		ResourceVersion: opts.ResourceVersion, LabelSelector: opts.LabelSelector,
		WatchPort: c.cfg.WatchPort, WatchID: w.id, AllowWatchBookmarks: opts.AllowWatchBookmarks}
	c.doRetrying(req, w.Ended, func(_ *apiwire.Response, err error) {
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

// close forgets the stream and, while its connection lives, tells its
// server (an HTTP/2 RST_STREAM on the connection; a dead connection's
// streams are dropped by conn.close).
func (w *Watcher) close() {
	w.ended = true
	c := w.c
	delete(c.watches, w.id)
	if w.conn == nil || w.conn.dead {
		return
	}
	opts := sim.CallOptions{Timeout: c.cfg.Timeout, Retransmit: true, Conn: w.conn.id, ServerInc: w.conn.inc}
	c.rpc.CallWith(w.server, apiwire.Port, w.cancelRequest(), opts, func(any, error) {})
}

// cancelRequest asks the server to drop the stream.
func (w *Watcher) cancelRequest() *apiwire.Request {
	return &apiwire.Request{User: w.c.cfg.User, Verb: apiwire.VerbCancelWatch, WatchPort: w.c.cfg.WatchPort, WatchID: w.id}
}

// handleWatchEvent delivers a server's watch event to its stream, in
// sequence: a duplicate is ignored and a gap ends the stream.
func (c *Client) handleWatchEvent(m *sim.Message) {
	ev, ok := m.Payload.(*apiwire.WatchEvent)
	if !ok {
		return
	}
	w := c.watches[ev.WatchID]
	if w == nil || w.ended || m.From != w.server {
		return
	}
	// A frame read on the stream's connection: the health check's
	// activity (only frames of the connection's own streams count).
	c.read(w.conn.id, m.FromInc)
	if ev.Seq < w.next {
		return
	}
	if ev.Seq > w.next {
		w.end(ErrWatchBroken)
		return
	}
	w.next++
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
