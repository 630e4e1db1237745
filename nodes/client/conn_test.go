package client_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/stretchr/testify/require"
)

// TestHealthCheckDetectsDeadServer: when the server behind a connection
// goes silent (isolated, crashed or paused), the client closes the
// connection 30 s + 15 s after the last frame it read, not earlier and not
// later, as golang.org/x/net/http2's transport does with client-go's
// settings (k8s.io/apimachinery/pkg/util/net/http.go
// configureHTTP2Transport: readIdleTimeoutSeconds 30, pingTimeoutSeconds
// 15; http2 transport.go ClientConn.healthCheck, closeForLostPing). The
// call in flight on it fails (unknown outcome), the watch on it ends, and
// the balancer moves to the other replica, which answers the next call.
func TestHealthCheckDetectsDeadServer(t *testing.T) {
	detect := client.DefaultReadIdleTimeout + client.DefaultPingTimeout
	for _, tc := range []struct {
		name  string
		fault func(e *env, h *sim.Host)
	}{
		{"partition", func(e *env, h *sim.Host) { e.World.Network().Isolate(h.ID()) }},
		{"crash", func(_ *env, h *sim.Host) { h.Crash() }},
		{"pause", func(_ *env, h *sim.Host) { h.Pause() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(11, 2, client.Config{User: "admin"})
			first := e.c.Server()
			var l watchLog
			var created, inflight, next result
			var lastFrame sim.Time
			e.at(0, func() { e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "0"}, e.watchLog(&l)) })
			e.at(time.Second, func() {
				e.c.Pods("default").Create(pod("a", nil, "v"), e.rec(&created))
			})
			e.at(2*time.Second, func() {
				require.Len(t, l.events, 1, "the ADDED event was read")
				lastFrame = max(created.at, e.World.Now()) // the reply and the event: both read by now
				tc.fault(e, e.World.Host(first))
			})
			e.at(3*time.Second, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&inflight)) })
			e.World.RunFor(40 * time.Second)
			require.False(t, inflight.done, "nothing fails before the ping times out")
			require.NoError(t, l.err)
			require.Equal(t, first, e.c.Server())

			e.World.RunFor(10 * time.Second)
			require.True(t, inflight.done)
			require.ErrorIs(t, inflight.err, client.ErrConnectionLost)
			require.True(t, client.IsUnknownOutcome(inflight.err))
			require.ErrorIs(t, l.err, client.ErrWatchIdle)
			require.Equal(t, inflight.at, sim.Time(l.errAt), "the call and the stream end together")
			// The last frame was read between 1 s and 2 s: the close
			// comes 45 s after it (the ping leaves 30 s after it).
			require.GreaterOrEqual(t, time.Duration(inflight.at), time.Second+detect)
			require.LessOrEqual(t, time.Duration(inflight.at), time.Duration(lastFrame)+detect)
			require.NotEqual(t, first, e.c.Server(), "the balancer moved on")

			e.at(0, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&next)) })
			e.World.RunFor(time.Second)
			require.True(t, next.done)
			require.NoError(t, next.err, "the other replica answers")
		})
	}
}

// TestHealthCheckExactTiming: a connection whose server died reads its
// last frame at a known time; the close comes exactly 45 s later.
func TestHealthCheckExactTiming(t *testing.T) {
	e := newEnv(12, 2, client.Config{User: "admin"})
	first := e.c.Server()
	var r, inflight result
	e.at(0, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&r)) })
	e.at(time.Second, func() {
		e.World.Host(first).Crash()
		e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&inflight))
	})
	e.World.RunFor(time.Minute)
	require.True(t, client.IsNotFound(r.err))
	require.Equal(t, r.at.Add(client.DefaultReadIdleTimeout+client.DefaultPingTimeout), inflight.at)
}

// TestSlowServerAnsweringPingsIsNotDropped: client-go puts no timeout on a
// request (rest.Config.Timeout 0, k8s.io/client-go/rest/config.go), and a
// server slow to answer still acknowledges the health check's PINGs (Go's
// HTTP/2 server answers them in its connection loop): a reply 40 s late
// arrives and nothing fails.
func TestSlowServerAnsweringPingsIsNotDropped(t *testing.T) {
	e := newEnv(13, 2, client.Config{User: "admin"})
	first := e.c.Server()
	for i, id := range e.Servers {
		if id == first {
			e.Server(i).Delay = 40 * time.Second
		}
	}
	var r result
	e.at(0, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&r)) })
	e.World.RunFor(39 * time.Second)
	require.False(t, r.done)
	e.World.RunFor(2 * time.Second)
	require.True(t, r.done)
	require.True(t, client.IsNotFound(r.err), "the slow answer arrives: %v", r.err)
	require.InDelta(t, float64(40*time.Second), float64(r.at), float64(10*time.Millisecond))
	require.Equal(t, first, e.c.Server())
}

// TestRestartedServerResetsConnection: a request retransmitted to a server
// whose host restarted meets a TCP reset (RFC 9293 3.5.2: a segment for a
// connection the host does not know), so the client learns at once
// instead of waiting out the health check; the watch on the connection
// ends too.
func TestRestartedServerResetsConnection(t *testing.T) {
	e := newEnv(14, 2, client.Config{User: "admin"})
	first := e.c.Server()
	var l watchLog
	var inflight result
	e.at(0, func() { e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "0"}, e.watchLog(&l)) })
	e.at(time.Second, func() {
		e.World.Host(first).Crash()
		e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&inflight))
	})
	e.at(5*time.Second, func() { e.World.Host(first).Restart() })
	e.World.RunFor(20 * time.Second)
	require.True(t, inflight.done)
	require.ErrorIs(t, inflight.err, client.ErrConnectionReset)
	require.True(t, client.IsUnknownOutcome(inflight.err))
	// Copies leave at 1.2, 1.6, 2.4, 4.0 and 7.2 s: the first after the
	// restart is answered with the reset.
	require.InDelta(t, float64(7200*time.Millisecond), float64(inflight.at), float64(10*time.Millisecond))
	require.ErrorIs(t, l.err, client.ErrWatchIdle)
	require.NotEqual(t, first, e.c.Server())
}

// apiEnv is a real API server (with its request deduplication) behind one
// client, for the retransmission tests.
func apiEnv(t *testing.T, seed uint64) (*apitest.Cluster, *sim.Host, *client.Client) {
	c := apitest.New(seed, 1, 1, nil)
	var cl *client.Client
	h := c.AddHost("x", func(h *sim.Host) {
		cl = client.New(h, client.Config{Name: "x", User: apitest.AdminUser, Servers: c.Servers})
	})
	c.W.RunFor(5 * time.Second)
	return c, h, cl
}

// TestRetransmission: TCP retransmits what a lossy link drops on a live
// connection (Linux: from TCP_RTO_MIN 200 ms, doubling; net/ipv4/tcp_timer.c
// tcp_retransmit_timer), and the server reads each request once. A lost
// request is sent again and applied once; a lost reply is sent again, and
// the request it answers is applied once however many copies arrive (a
// create with generateName would make one object per serving).
func TestRetransmission(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(client, server sim.HostID) (sim.HostID, sim.HostID)
		// the reply arrives with the first copy sent after the 500 ms
		// cut heals: the third, at 600 ms.
		at time.Duration
	}{
		{"lost request", func(c, s sim.HostID) (sim.HostID, sim.HostID) { return c, s }, 600 * time.Millisecond},
		{"lost reply", func(c, s sim.HostID) (sim.HostID, sim.HostID) { return s, c }, 600 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, h, cl := apiEnv(t, 21)
			from, to := tc.cut(h.ID(), c.Servers[0])
			start := c.W.Now()
			var r result
			var created model.Object
			c.W.After(0, "test", func() {
				c.W.Network().Cut(from, to)
				l := &model.Lease{}
				l.Namespace, l.GenerateName = "default", "l-"
				cl.Leases("default").Create(l, func(obj model.Object, err error) {
					created, r.err, r.at, r.done = obj, err, c.W.Now(), true
				})
			})
			c.W.After(500*time.Millisecond, "heal", func() { c.W.Network().Uncut(from, to) })
			c.W.RunFor(5 * time.Second)
			require.True(t, r.done)
			require.NoError(t, r.err)
			require.InDelta(t, float64(tc.at), float64(r.at.Sub(start)), float64(10*time.Millisecond))
			var list *client.ObjectList
			cl.Leases("default").List(client.ListOptions{}, func(l *client.ObjectList, err error) {
				require.NoError(t, err)
				list = l
			})
			c.W.RunFor(time.Second)
			require.NotNil(t, list)
			require.Len(t, list.Items, 1, "applied once")
			require.Equal(t, created.GetObjectMeta().Name, list.Items[0].GetObjectMeta().Name)
		})
	}
}
