package sim

import (
	"errors"
	"time"
)

// ErrTimeout is the error a call gets when no reply came before its deadline.
// Its outcome is unknown: the request may or may not have been applied.
var ErrTimeout = errors.New("sim: rpc timed out")

type rpcRequest struct {
	Call      uint64
	ReplyPort string
	Body      any
}

type rpcResponse struct {
	Call uint64
	Body any
}

// RPC is one host incarnation's client side: it matches replies to pending
// calls and times them out. It lives and dies with the incarnation that made
// it, so a reply to a call made before a crash finds nobody and is dropped.
type RPC struct {
	h       *Host
	port    string
	next    uint64
	pending map[uint64]*pendingCall
}

type pendingCall struct {
	timer *Timer
	done  func(resp any, err error)
}

// NewRPC makes the RPC client of h, receiving replies on port. Call it from
// Boot.
func NewRPC(h *Host, port string) *RPC {
	r := &RPC{h: h, port: port, pending: make(map[uint64]*pendingCall)}
	h.Handle(port, r.handleReply)
	return r
}

// Call sends req to port on host to, and later calls done exactly once: with
// the reply, or with ErrTimeout after timeout. done never runs after a crash
// of the calling host.
func (r *RPC) Call(to HostID, port string, req any, timeout time.Duration, done func(resp any, err error)) {
	r.next++
	id := r.next
	pc := &pendingCall{done: done}
	pc.timer = r.h.After(timeout, "rpc-timeout", func() {
		if _, ok := r.pending[id]; !ok {
			return
		}
		delete(r.pending, id)
		done(nil, ErrTimeout)
	})
	r.pending[id] = pc
	r.h.Send(to, port, &rpcRequest{Call: id, ReplyPort: r.port, Body: req})
}

// Outstanding returns how many calls await a reply.
func (r *RPC) Outstanding() int { return len(r.pending) }

func (r *RPC) handleReply(m *Message) {
	resp, ok := m.Payload.(*rpcResponse)
	if !ok {
		return
	}
	pc, ok := r.pending[resp.Call]
	if !ok {
		r.h.w.emit(KindDrop, r.h.id, m.From, m.ID, m.Port, "late-reply")
		return
	}
	delete(r.pending, resp.Call)
	pc.timer.Stop()
	pc.done(resp.Body, nil)
}

// Request is a call received by a server. Reply may be called later, after
// asynchronous work; a reply from an incarnation that crashed in between is
// never sent.
type Request struct {
	Body any
	From HostID
	h    *Host
	inc  uint64
	msg  *rpcRequest
	to   uint64
	done bool
}

// Reply answers the request once; later calls do nothing.
func (q *Request) Reply(body any) {
	if q.done || q.h.incarnation != q.inc || q.h.state != hostUp {
		return
	}
	q.done = true
	q.h.send(q.From, q.msg.ReplyPort, &rpcResponse{Call: q.msg.Call, Body: body}, q.to)
}

// Serve installs fn as the server of RPCs sent to port on h.
func Serve(h *Host, port string, fn func(q *Request)) {
	h.Handle(port, func(m *Message) {
		req, ok := m.Payload.(*rpcRequest)
		if !ok {
			return
		}
		fn(&Request{Body: req.Body, From: m.From, h: h, inc: h.incarnation, msg: req, to: m.FromInc})
	})
}
