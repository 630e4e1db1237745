package etcd

import (
	"errors"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// WatchRequest opens a watch with Client.Watch.
type WatchRequest struct {
	// Key is the key, or the start of the range [Key, End).
	Key string
	// End is the range end; empty watches Key alone.
	End string
	// StartRev is the first revision to report; 0 means from now on.
	StartRev int64
	// PrevKV asks for the previous version of each changed key.
	PrevKV bool
	// ProgressNotify is WatchCreateRequest.progress_notify: the member
	// sends the watch a progress notification (no events, the current
	// revision) every --watch-progress-notify-interval in which it sent
	// it no events, once it is synced. kube-apiserver's watch cache asks
	// for it (k8s.io/apiserver pkg/storage/etcd3/watcher.go,
	// clientv3.WithProgressNotify).
	ProgressNotify bool
}

// WatchResponse is one response on a watch stream, or its end (Err set).
type WatchResponse struct {
	// Stream is the handle's stream number.
	Stream uint64
	// Member is the member that sent the response.
	Member string
	// Revision is the header revision.
	Revision int64
	// Events are the changes, in revision order.
	Events []mvcc.Event
	// Progress marks a progress notification (no events).
	Progress bool
	// Canceled marks a cancellation because StartRev is compacted;
	// CompactRevision names the compact revision.
	Canceled        bool
	CompactRevision int64
	// Err, when set, says the stream has ended without a cancellation: the
	// create call failed, the stream broke (a lost message), or the member
	// dropped it. Nothing follows.
	Err error
}

// WatchHandle is one watch stream on one member. Its responses arrive in
// order, each at most once; when one is lost the stream ends with
// ErrWatchBroken, as a broken connection would end it.
type WatchHandle struct {
	c        *Client
	stream   uint64
	endpoint sim.HostID
	next     uint64 // sequence number of the next response
	onResp   func(WatchResponse)
	closed   bool
	// alive is when the member last showed the stream alive: a response
	// on it, or an answer to a progress request.
	alive sim.Time
}

// Watch opens a watch on the client's current endpoint and calls onResp for
// every response, then once with Err set if the stream ends other than by a
// cancellation. It does not resume: the resuming watcher is in kvload.
func (c *Client) Watch(req WatchRequest, onResp func(WatchResponse)) *WatchHandle {
	c.streams++
	wh := &WatchHandle{c: c, stream: c.streams, endpoint: c.Endpoint(), next: 1, onResp: onResp, alive: c.h.Now()}
	if wh.endpoint == sim.NoHost {
		wh.closed = true
		c.h.After(0, "etcd-watch-no-endpoint", func() { onResp(WatchResponse{Stream: wh.stream, Err: ErrDeadlineExceeded}) })
		return wh
	}
	c.watches = append(c.watches, wh)
	create := &watchCreate{Stream: wh.stream, Port: c.cfg.ReplyPort + "-watch", Key: []byte(req.Key),
		StartRev: req.StartRev, PrevKV: req.PrevKV, ProgressNotify: req.ProgressNotify}
	if req.End != "" {
		create.End = []byte(req.End)
	}
	c.rpc.Call(wh.endpoint, ClientPort, create, c.cfg.RequestTimeout, func(resp any, err error) {
		if err == nil {
			r, ok := resp.(*reply)
			if ok && r.Err == nil {
				return
			}
			err = replyErr(r, ok)
		} else {
			err = ErrDeadlineExceeded
		}
		wh.end(err)
	})
	return wh
}

// Stream returns the handle's stream number, unique within its client.
func (wh *WatchHandle) Stream() uint64 { return wh.stream }

// Endpoint returns the member the stream is on.
func (wh *WatchHandle) Endpoint() sim.HostID { return wh.endpoint }

// Alive returns when the member last showed the stream alive: the stream's
// creation, a response on it, or an answer to RequestProgress. It stands in
// for the liveness that gRPC's keepalive gives a real client's connection,
// which does not depend on the watch having anything to report.
func (wh *WatchHandle) Alive() sim.Time { return wh.alive }

// Closed reports whether the stream has ended or was cancelled.
func (wh *WatchHandle) Closed() bool { return wh.closed }

// RequestProgress asks the member for a progress notification. A member
// that no longer has the stream, or has no leader, ends it.
func (wh *WatchHandle) RequestProgress() {
	if wh.closed {
		return
	}
	c := wh.c
	c.rpc.Call(wh.endpoint, ClientPort, &watchProgress{Stream: wh.stream}, c.cfg.RequestTimeout, func(resp any, err error) {
		if err != nil {
			return // silence: the watcher notices
		}
		r, ok := resp.(*reply)
		switch {
		case ok && r.Err != nil && (errors.Is(r.Err, mvcc.ErrWatcherNotExist) || errors.Is(r.Err, ErrNoLeader)):
			wh.end(r.Err)
		case ok && r.Err == nil:
			// The member has the stream; a notification may still not
			// come (etcd sends none before the watch's start revision).
			wh.alive = c.h.Now()
		}
	})
}

// Cancel ends the stream without a callback and tells the member, if it is
// reachable, to drop it.
func (wh *WatchHandle) Cancel() {
	if wh.closed {
		return
	}
	wh.close()
	c := wh.c
	c.rpc.Call(wh.endpoint, ClientPort, &watchCancel{Stream: wh.stream}, c.cfg.RequestTimeout, func(any, error) {})
}

// end closes the stream, tells the member (if it still has the stream and
// can be reached) to drop it, and reports why.
func (wh *WatchHandle) end(err error) {
	if wh.closed {
		return
	}
	wh.Cancel()
	wh.onResp(WatchResponse{Stream: wh.stream, Err: err})
}

// close forgets the stream.
func (wh *WatchHandle) close() {
	wh.closed = true
	c := wh.c
	for i, x := range c.watches {
		if x == wh {
			c.watches = append(c.watches[:i], c.watches[i+1:]...)
			return
		}
	}
}

// handleWatchMessage delivers a member's watch response to its stream, in
// sequence: duplicates are ignored, and a gap ends the stream.
func (c *Client) handleWatchMessage(m *sim.Message) {
	wm, ok := m.Payload.(*watchMessage)
	if !ok {
		return
	}
	var wh *WatchHandle
	for _, x := range c.watches {
		if x.stream == wm.Stream && x.endpoint == m.From {
			wh = x
		}
	}
	if wh == nil || wm.Seq < wh.next {
		return
	}
	if wm.Seq > wh.next {
		wh.end(ErrWatchBroken)
		return
	}
	wh.next++
	wh.alive = c.h.Now()
	r := wm.Resp
	resp := WatchResponse{
		Stream: wh.stream, Member: wm.Member, Revision: r.Revision, Events: r.Events,
		Progress: len(r.Events) == 0 && !r.Canceled, Canceled: r.Canceled, CompactRevision: r.CompactRevision,
	}
	if r.Canceled {
		wh.close()
	}
	wh.onResp(resp)
}
