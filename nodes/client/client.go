package client

import (
	"errors"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Client talks to the API server replicas of Config.Servers from one host
// incarnation. Make it from the host's Boot with New.
type Client struct {
	h       *sim.Host
	cfg     Config
	rpc     *sim.RPC
	cur     int
	op      uint64
	watchID uint64
	watches map[uint64]*Watcher
	// conns are the live connections by server, and by id (both looked
	// up, never ranged).
	conns  map[sim.HostID]*conn
	byID   map[uint64]*conn
	connID uint64
}

// New makes a client on h and installs its reply and watch ports.
func New(h *sim.Host, cfg Config) *Client {
	cfg = cfg.withDefaults(h)
	c := &Client{
		h:       h,
		cfg:     cfg,
		rpc:     sim.NewRPC(h, cfg.ReplyPort),
		watches: make(map[uint64]*Watcher),
		conns:   make(map[sim.HostID]*conn),
		byID:    make(map[uint64]*conn),
		// Watch IDs carry the incarnation, so that a stream opened before a
		// crash can never be taken for one opened after it.
		watchID: h.Incarnation() << 32,
	}
	if n := len(cfg.Servers); n > 0 {
		c.cur = h.Rand("client/" + cfg.Name + "/lb").IntN(n)
	}
	h.Handle(cfg.WatchPort, c.handleWatchEvent)
	c.rpc.OnFrame(func(id uint64, _ sim.HostID, inc uint64) { c.read(id, inc) })
	return c
}

// Host returns the client's host.
func (c *Client) Host() *sim.Host { return c.h }

// Name returns the client's name in the trace.
func (c *Client) Name() string { return c.cfg.Name }

// Config returns the client's configuration, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// Server returns the replica the load balancer currently sends to, or
// sim.NoHost when none is configured.
func (c *Client) Server() sim.HostID {
	if len(c.cfg.Servers) == 0 {
		return sim.NoHost
	}
	return c.cfg.Servers[c.cur]
}

// failover moves the load balancer past server, unless another call
// already did (or its connection's death did).
func (c *Client) failover(server sim.HostID) {
	if n := len(c.cfg.Servers); n > 0 && c.cfg.Servers[c.cur] == server {
		c.cur = (c.cur + 1) % n
	}
}

// shouldFailover reports whether an outcome means the server is unusable.
func shouldFailover(err error) bool {
	return IsNoAnswer(err) || IsServiceUnavailable(err)
}

// send sends one attempt of a request to the current replica, on the
// client's connection to it, and calls done with its response or error,
// as Do describes.
func (c *Client) send(req *apiwire.Request, done func(*apiwire.Response, error)) {
	server := c.Server()
	if server == sim.NoHost {
		c.h.After(0, "api-no-servers", func() { done(nil, ErrNoServers) })
		return
	}
	req.User = c.cfg.User
	if c.cfg.OnWrite != nil && isWrite(req.Verb) {
		c.cfg.OnWrite(req)
	}
	cn := c.connTo(server)
	opts := sim.CallOptions{Timeout: c.cfg.Timeout, Retransmit: true, Conn: cn.id, ServerInc: cn.inc}
	c.rpc.CallWith(server, apiwire.Port, req, opts, func(body any, err error) {
		var resp *apiwire.Response
		switch {
		case errors.Is(err, sim.ErrReset):
			// The server restarted: the connection is gone, and with
			// it every stream on it.
			err = ErrConnectionReset
			cn.close(err)
		case errors.Is(err, sim.ErrTimeout):
			err = ErrNoAnswer // Config.Timeout
		case err != nil:
			// The connection closed under the call (conn.close): err
			// says why.
		default:
			r, ok := body.(*apiwire.Response)
			if !ok {
				err = ErrNoAnswer // an answer that is not one: treat as none
				break
			}
			resp = r
			if !r.Status.OK() {
				err = NewStatusError(r.Status, r.Server)
			}
		}
		if shouldFailover(err) {
			c.failover(server)
		}
		done(resp, err)
	})
}

// nextOp numbers the client's traced calls.
func (c *Client) nextOp() uint64 {
	c.op++
	return c.op
}

// isWrite reports whether a verb changes what the API server stores.
func isWrite(v apiwire.Verb) bool {
	switch v {
	case apiwire.VerbCreate, apiwire.VerbUpdate, apiwire.VerbUpdateStatus, apiwire.VerbPatch, apiwire.VerbDelete, apiwire.VerbBind:
		return true
	}
	return false
}

// RequestKey names what a request is about, as namespace/name (or name):
// for a create whose name the API server generates, namespace/generateName.
func RequestKey(req *apiwire.Request) string {
	name := req.Name
	if name == "" && req.Object != nil {
		name = req.Object.GetObjectMeta().GenerateName
	}
	return model.NamespacedName{Namespace: req.Namespace, Name: name}.String()
}
