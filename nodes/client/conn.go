package client

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// HTTP/2 connection health check, as client-go enables it on every
// transport: k8s.io/apimachinery/pkg/util/net/http.go, SetTransportDefaults
// → configureHTTP2Transport sets the HTTP/2 SendPingTimeout (ReadIdleTimeout
// in golang.org/x/net/http2) from readIdleTimeoutSeconds
// (HTTP2_READ_IDLE_TIMEOUT_SECONDS, default 30) and PingTimeout from
// pingTimeoutSeconds (HTTP2_PING_TIMEOUT_SECONDS, default 15). In
// golang.org/x/net/http2 transport.go, ClientConn.readLoop resets the read
// idle timer on every frame read; when it fires, healthCheck sends a PING
// and, when no acknowledgement comes within PingTimeout, closes the
// connection (closeForLostPing), which fails every request and stream on it.
const (
	// DefaultReadIdleTimeout is how long a connection may read nothing
	// before the client pings the server.
	DefaultReadIdleTimeout = 30 * time.Second
	// DefaultPingTimeout is how long the client waits for the ping's
	// acknowledgement before it closes the connection.
	DefaultPingTimeout = 15 * time.Second
)

// conn is the client's HTTP/2 connection to one API server replica: every
// request and watch of the client to that replica travels on it
// (multiplexed streams), and its health check ends them all when the
// replica stops answering.
type conn struct {
	c      *Client
	id     uint64
	server sim.HostID
	// inc is the server incarnation the connection was made with, learned
	// from the first frame read (0 before): a restarted server answers
	// the connection's next segment with a reset.
	inc  uint64
	idle *sim.Timer // the read idle timer
	wait *sim.Timer // the outstanding ping's timeout
	ping uint64     // the outstanding ping, 0 when none
	dead bool
}

// connTo returns the live connection to server, making one if there is
// none.
func (c *Client) connTo(server sim.HostID) *conn {
	if cn := c.conns[server]; cn != nil {
		return cn
	}
	c.connID++
	cn := &conn{c: c, id: c.connID, server: server}
	cn.idle = c.h.NewTimer("api-conn-read-idle", cn.healthCheck)
	cn.wait = c.h.NewTimer("api-conn-ping-timeout", func() { cn.close(ErrConnectionLost) })
	cn.idle.Reset(c.cfg.ReadIdleTimeout)
	c.conns[server] = cn
	c.byID[cn.id] = cn
	return cn
}

// read notes a frame read on connection id from server incarnation inc.
func (c *Client) read(id uint64, inc uint64) {
	cn := c.byID[id]
	if cn == nil || cn.dead {
		return
	}
	if cn.inc == 0 {
		cn.inc = inc
	}
	cn.idle.Reset(c.cfg.ReadIdleTimeout)
}

// healthCheck pings the server after ReadIdleTimeout without a frame read.
func (cn *conn) healthCheck() {
	if cn.dead || cn.ping != 0 {
		return
	}
	c := cn.c
	cn.ping = c.rpc.Ping(cn.id, cn.server, apiwire.Port, cn.inc, func(reset bool) {
		cn.ping = 0
		cn.wait.Stop()
		if reset {
			cn.close(ErrConnectionReset)
		}
	})
	cn.wait.Reset(c.cfg.PingTimeout)
}

// close ends the connection: every call in flight on it fails with err
// (its outcome unknown), every watch stream on it ends with ErrWatchIdle
// wrapping err (errors.Is tells a lost connection from a reset one), and
// the load balancer moves past its server. The server is told, best effort,
// to drop the streams (a real server learns it from the closed socket).
func (cn *conn) close(err error) {
	if cn.dead {
		return
	}
	cn.dead = true
	c := cn.c
	cn.idle.Stop()
	cn.wait.Stop()
	if cn.ping != 0 {
		c.rpc.CancelPing(cn.ping)
	}
	delete(c.conns, cn.server)
	delete(c.byID, cn.id)
	c.failover(cn.server)
	var ws []*Watcher
	// determinism: the streams are sorted by id before use.
	for _, w := range c.watches {
		if w.conn == cn {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b *Watcher) int { return cmp.Compare(a.id, b.id) })
	for _, w := range ws {
		c.rpc.Post(cn.server, apiwire.Port, w.cancelRequest())
	}
	c.rpc.Abort(cn.id, err)
	for _, w := range ws {
		w.end(fmt.Errorf("%w: %w", ErrWatchIdle, err))
	}
}
