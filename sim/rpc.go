package sim

import (
	"errors"
	"slices"
	"time"
)

// ErrTimeout is the error a call gets when no reply came before its deadline.
// Its outcome is unknown: the request may or may not have been applied.
var ErrTimeout = errors.New("sim: rpc timed out")

// ErrReset is the error a call gets when the server's host answered it with
// a TCP reset: the host restarted since the caller's connection was made
// (CallOptions.ServerInc), so the new incarnation knows no such connection.
// The outcome is unknown: the old incarnation may have applied the request
// before it went down.
var ErrReset = errors.New("sim: connection reset by peer")

// Retransmission of an unanswered request, standing in for TCP's, which
// hides a lossy link from a live connection: Linux starts at TCP_RTO_MIN
// (200 ms, a LAN connection's measured RTO rounds up to it) and doubles on
// every retransmission up to TCP_RTO_MAX (120 s) (include/net/tcp.h,
// tcp_retransmit_timer in net/ipv4/tcp_timer.c).
const (
	// RetransmitRTO is the first retransmission timeout.
	RetransmitRTO = 200 * time.Millisecond
	// RetransmitMaxRTO caps the doubling: no two copies of one request
	// leave more than this apart.
	RetransmitMaxRTO = 120 * time.Second
)

type rpcRequest struct {
	Call      uint64
	ReplyPort string
	Body      any
	// ServerInc is the server incarnation the caller's connection was
	// made with, 0 while unknown (a new connection).
	ServerInc uint64
}

type rpcResponse struct {
	Call uint64
	Body any
	// Reset: the server's host is a later incarnation than the
	// connection's (a TCP RST); Body is nil.
	Reset bool
}

// rpcPing is an HTTP/2 PING frame on a connection: Serve answers it with an
// rpcPong without involving the server's handler, as Go's HTTP/2 server
// acknowledges PINGs in its connection loop (golang.org/x/net/http2
// server.go, serverConn.processPing).
type rpcPing struct {
	Seq       uint64
	ReplyPort string
	ServerInc uint64
}

type rpcPong struct {
	Seq   uint64
	Reset bool
}

// RPC is one host incarnation's client side: it matches replies to pending
// calls and times them out. It lives and dies with the incarnation that made
// it, so a reply to a call made before a crash finds nobody and is dropped.
type RPC struct {
	h       *Host
	port    string
	next    uint64
	pending map[uint64]*pendingCall
	pings   map[uint64]*pendingPing
	onFrame func(conn uint64, from HostID, inc uint64)
}

type pendingCall struct {
	id    uint64
	to    HostID
	port  string
	msg   *rpcRequest
	conn  uint64
	rto   time.Duration
	timer *Timer // the deadline, or nil
	rtx   *Timer // the next retransmission, or nil
	done  func(resp any, err error)
	// deadline is timer's memory, when set: one allocation per call.
	deadline Timer
}

type pendingPing struct {
	conn uint64
	done func(reset bool)
}

// CallOptions tune one call of CallWith.
type CallOptions struct {
	// Timeout fails the call with ErrTimeout when no reply came in time;
	// zero means no deadline.
	Timeout time.Duration
	// Retransmit sends the request again, with TCP's doubling timeout from
	// RetransmitRTO, until a reply comes or the call ends: the server
	// must recognise the copies (they carry the same Body) and answer
	// each with the one reply, never serve it twice.
	Retransmit bool
	// Conn tags the call with the caller's connection: Abort fails every
	// call of a connection, and the frame hook (OnFrame) names it.
	Conn uint64
	// ServerInc is the server incarnation the connection was made with (0:
	// unknown yet): a later incarnation answers with a reset (ErrReset).
	ServerInc uint64
}

// NewRPC makes the RPC client of h, receiving replies on port. Call it from
// Boot.
func NewRPC(h *Host, port string) *RPC {
	r := &RPC{h: h, port: port, pending: make(map[uint64]*pendingCall), pings: make(map[uint64]*pendingPing)}
	h.Handle(port, r.handleReply)
	return r
}

// OnFrame installs fn, called with the connection tag, the sender and its
// incarnation for every reply and ping acknowledgement read for a call or
// ping still pending: what an HTTP/2 client counts as a frame read on that
// connection.
func (r *RPC) OnFrame(fn func(conn uint64, from HostID, inc uint64)) { r.onFrame = fn }

// Call sends req to port on host to, and later calls done exactly once: with
// the reply, or with ErrTimeout after timeout. done never runs after a crash
// of the calling host.
func (r *RPC) Call(to HostID, port string, req any, timeout time.Duration, done func(resp any, err error)) {
	r.CallWith(to, port, req, CallOptions{Timeout: timeout}, done)
}

// CallWith sends req to port on host to as o says, and later calls done
// exactly once: with the reply, with ErrTimeout after o.Timeout, with
// ErrReset, or with Abort's error. It returns the call's id. done never
// runs after a crash of the calling host.
func (r *RPC) CallWith(to HostID, port string, req any, o CallOptions, done func(resp any, err error)) uint64 {
	r.next++
	id := r.next
	pc := &pendingCall{id: id, to: to, port: port, conn: o.Conn, done: done,
		msg: &rpcRequest{Call: id, ReplyPort: r.port, Body: req, ServerInc: o.ServerInc}}
	if o.Timeout > 0 {
		pc.timer = &pc.deadline
		r.h.initTimer(pc.timer, "rpc-timeout", func() { r.finish(id, nil, ErrTimeout) })
		pc.timer.Reset(o.Timeout)
	}
	if o.Retransmit {
		pc.rto = RetransmitRTO
		pc.rtx = r.h.After(pc.rto, "rpc-retransmit", func() { r.retransmit(pc) })
	}
	r.pending[id] = pc
	r.h.Send(to, port, pc.msg)
	return id
}

// retransmit sends pc's request again and doubles its timeout.
func (r *RPC) retransmit(pc *pendingCall) {
	if r.pending[pc.id] != pc {
		return
	}
	r.h.Send(pc.to, pc.port, pc.msg)
	pc.rto = min(2*pc.rto, RetransmitMaxRTO)
	pc.rtx.Reset(pc.rto)
}

// finish ends call id, if still pending, with resp or err.
func (r *RPC) finish(id uint64, resp any, err error) {
	pc, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	if pc.timer != nil {
		pc.timer.Stop()
	}
	if pc.rtx != nil {
		pc.rtx.Stop()
	}
	pc.done(resp, err)
}

// Abort fails every pending call and ping of connection conn with err, in
// the order they were made, as closing a connection fails every stream on
// it. Calls made by their callbacks are not affected.
func (r *RPC) Abort(conn uint64, err error) {
	var ids, pings []uint64
	// determinism: the ids are sorted before use.
	for id, pc := range r.pending {
		if pc.conn == conn {
			ids = append(ids, id)
		}
	}
	// determinism: the ids are sorted before use.
	for seq, p := range r.pings {
		if p.conn == conn {
			pings = append(pings, seq)
		}
	}
	slices.Sort(ids)
	slices.Sort(pings)
	for _, seq := range pings {
		delete(r.pings, seq)
	}
	for _, id := range ids {
		r.finish(id, nil, err)
	}
}

// Post sends req to port on host to as a request whose answer nobody
// awaits: a best-effort notice, neither retransmitted nor timed.
func (r *RPC) Post(to HostID, port string, req any) {
	r.h.Send(to, port, &rpcRequest{ReplyPort: r.port, Body: req})
}

// Ping sends an HTTP/2 PING on connection conn to port on host to (served
// by Serve there) and calls done when its acknowledgement arrives, with
// reset true when the host answered with a reset (see ErrReset). It
// returns the ping's number; CancelPing forgets it.
func (r *RPC) Ping(conn uint64, to HostID, port string, serverInc uint64, done func(reset bool)) uint64 {
	r.next++
	seq := r.next
	r.pings[seq] = &pendingPing{conn: conn, done: done}
	r.h.Send(to, port, &rpcPing{Seq: seq, ReplyPort: r.port, ServerInc: serverInc})
	return seq
}

// CancelPing forgets ping seq: its acknowledgement will be ignored.
func (r *RPC) CancelPing(seq uint64) { delete(r.pings, seq) }

// Outstanding returns how many calls await a reply.
func (r *RPC) Outstanding() int { return len(r.pending) }

func (r *RPC) handleReply(m *Message) {
	switch resp := m.Payload.(type) {
	case *rpcResponse:
		pc, ok := r.pending[resp.Call]
		if !ok {
			r.h.w.emit(KindDrop, r.h.id, m.From, m.ID, m.Port, "late-reply")
			return
		}
		if r.onFrame != nil {
			r.onFrame(pc.conn, m.From, m.FromInc)
		}
		if resp.Reset {
			r.finish(resp.Call, nil, ErrReset)
			return
		}
		r.finish(resp.Call, resp.Body, nil)
	case *rpcPong:
		p, ok := r.pings[resp.Seq]
		if !ok {
			return
		}
		delete(r.pings, resp.Seq)
		if r.onFrame != nil && !resp.Reset {
			r.onFrame(p.conn, m.From, m.FromInc)
		}
		p.done(resp.Reset)
	}
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

// Reply answers the request once; later calls do nothing. A request sent
// with Post expects no answer, and gets none.
func (q *Request) Reply(body any) {
	if q.done || q.h.incarnation != q.inc || q.h.state != hostUp {
		return
	}
	q.done = true
	if q.msg.Call == 0 {
		return
	}
	q.h.send(q.From, q.msg.ReplyPort, &rpcResponse{Call: q.msg.Call, Body: body}, q.to)
}

// Serve installs fn as the server of RPCs sent to port on h. It answers
// PINGs itself, and answers a request or PING sent on a connection to an
// earlier incarnation of h with a reset, as the kernel of a restarted host
// answers a segment of a connection it does not know (RFC 9293, 3.5.2).
func Serve(h *Host, port string, fn func(q *Request)) {
	h.Handle(port, func(m *Message) {
		switch req := m.Payload.(type) {
		case *rpcRequest:
			if req.ServerInc != 0 && req.ServerInc != h.incarnation {
				if req.Call != 0 {
					h.send(m.From, req.ReplyPort, &rpcResponse{Call: req.Call, Reset: true}, m.FromInc)
				}
				return
			}
			if req.ServerInc == 0 {
				// The connection was made with this incarnation (its
				// handshake came here first): the caller's copies of
				// the request, retransmitted, carry it from now on, so
				// that a later incarnation resets them instead of
				// serving the request again.
				req.ServerInc = h.incarnation
			}
			fn(&Request{Body: req.Body, From: m.From, h: h, inc: h.incarnation, msg: req, to: m.FromInc})
		case *rpcPing:
			reset := req.ServerInc != 0 && req.ServerInc != h.incarnation
			h.send(m.From, req.ReplyPort, &rpcPong{Seq: req.Seq, Reset: reset}, m.FromInc)
		}
	})
}
