package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestVeryShortWatchRelists: a watch that ends within a second of its start
// without an event is client-go's "very short watch": the reflector relists
// (after its backoff) instead of resuming. One that saw an event resumes.
func TestVeryShortWatchRelists(t *testing.T) {
	for _, sawEvent := range []bool{false, true} {
		t.Run(map[bool]string{false: "no-event", true: "saw-an-event"}[sawEvent], func(t *testing.T) {
			e := newEnv(3, 1, cache.InformerConfig{})
			e.do(func() { e.create("a", nil) })
			// The stream breaks on a gap: an event dropped, the next one
			// sent. Both come within the watch's first second; with
			// sawEvent, an event the informer sees comes first.
			e.World.After(0, "test", func() {
				e.inf.Run()
				e.World.After(100*time.Millisecond, "test", func() {
					if sawEvent {
						e.create("b", nil)
					}
					e.World.After(100*time.Millisecond, "test", func() {
						e.Server(0).DropWatchEvents = 1
						e.create("c", nil)
						e.create("d", nil)
					})
				})
			})
			e.World.RunFor(5 * time.Second)
			e.requireConverged(t)
			if sawEvent {
				require.Len(t, e.relists, 1, "resumed, no relist")
				return
			}
			require.Len(t, e.relists, 2)
			require.Equal(t, cache.RelistWatchError, e.relists[1].Reason)
			require.Equal(t, 2, e.inf.Reflector().Relists(), "the reflector counts its lists")
		})
	}
}

// TestWatchTimeout: the reflector ends each watch after a random timeout in
// [MinWatchTimeout, 2*MinWatchTimeout), client-go's timeoutSeconds, and
// resumes from its last resourceVersion without a relist.
func TestWatchTimeout(t *testing.T) {
	// No idle timeout: the fake servers send no bookmarks.
	e := newEnvClient(3, 1, cache.InformerConfig{}, client.Config{})
	e.do(func() { e.create("a", nil) })
	e.do(e.inf.Run)
	e.World.RunFor(cache.MinWatchTimeout - 3*time.Second)
	require.Equal(t, 1, e.Server(0).Requests[apiwire.VerbWatch], "no watch ends before MinWatchTimeout")
	e.World.RunFor(cache.MinWatchTimeout + time.Second)
	require.Equal(t, 2, e.Server(0).Requests[apiwire.VerbWatch], "the first watch ended before 2*MinWatchTimeout")
	require.Len(t, e.relists, 1, "resumed, no relist")
	e.do(func() { e.create("b", nil) })
	e.requireConverged(t)
}

// TestLostConnectionRelists: a watch whose connection fails its HTTP/2
// health check ends, in client-go, with an ERROR event ("unable to decode
// an event from the watch stream: http2: client connection lost", which
// net.IsProbableEOF does not know; apimachinery's StreamWatcher.receive),
// so the reflector lists again from its last resourceVersion, after its
// backoff, on the next replica. A connection reset by a restarted server
// ("connection reset by peer", IsProbableEOF) closes the stream cleanly:
// the reflector resumes its watch there, without a list.
func TestLostConnectionRelists(t *testing.T) {
	for _, lost := range []bool{true, false} {
		t.Run(map[bool]string{true: "lost", false: "reset"}[lost], func(t *testing.T) {
			e := newEnv(4, 2, cache.InformerConfig{})
			e.do(func() { e.create("a", nil) })
			e.do(e.inf.Run)
			e.do(func() { e.create("b", nil) })
			first := 0
			if e.Server(1).Requests[apiwire.VerbWatch] > 0 {
				first = 1
			}
			other := e.Server(1 - first)
			lastRV := e.inf.Reflector().LastSyncResourceVersion()
			h := e.World.Host(e.Servers[first])
			e.do(func() {
				if lost {
					e.World.Network().Isolate(h.ID())
					return
				}
				h.Crash()
			})
			if !lost {
				e.do(h.Restart)
			}
			e.World.RunFor(time.Minute)
			if lost {
				require.Len(t, e.relists, 2)
				require.Equal(t, cache.RelistWatchError, e.relists[1].Reason)
				require.Equal(t, []string{lastRV}, other.ListRVs, "a list from the last resourceVersion, on the other replica")
			} else {
				require.Len(t, e.relists, 1, "resumed, no relist")
				require.Empty(t, other.ListRVs)
				require.Equal(t, 1, other.Requests[apiwire.VerbWatch], "the watch resumed on the other replica")
			}
			e.do(func() { e.create("c", nil) })
			e.requireConverged(t)
		})
	}
}
