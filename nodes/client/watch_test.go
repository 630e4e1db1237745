package client_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/stretchr/testify/require"
)

type watchLog struct {
	events []apiwire.WatchEvent
	err    error
	errAt  time.Duration
	calls  int
}

func (e *env) watchLog(l *watchLog) client.WatchHandler {
	return func(ev *apiwire.WatchEvent, err error) {
		l.calls++
		if err != nil {
			l.err, l.errAt = err, time.Duration(e.World.Now())
			return
		}
		l.events = append(l.events, *ev)
	}
}

func (e *env) create(name string) {
	e.c.Pods("default").Create(pod(name, nil, name), func(model.Object, error) {})
}

func TestWatchInOrderAndStop(t *testing.T) {
	e := newEnv(5, 1, client.Config{})
	var l watchLog
	var w *client.Watcher
	e.at(0, func() { e.create("a") })
	e.at(time.Second, func() { w = e.c.Pods("default").Watch(client.ListOptions{}, e.watchLog(&l)) })
	e.at(2*time.Second, func() { e.create("b"); e.create("c") })
	e.at(3*time.Second, func() { w.Stop() })
	e.at(4*time.Second, func() { e.create("d") })
	e.World.RunFor(5 * time.Second)
	require.NoError(t, l.err)
	require.Len(t, l.events, 3, "synthetic ADDED for a, then b and c; nothing after Stop")
	for i, name := range []string{"a", "b", "c"} {
		require.Equal(t, apiwire.Added, l.events[i].Type)
		require.Equal(t, name, l.events[i].Object.GetObjectMeta().Name)
	}
	require.Empty(t, e.Server(0).Requests[apiwire.VerbWatch]-1)
	require.Equal(t, 1, e.Server(0).Requests[apiwire.VerbCancelWatch])
}

func TestWatchGapEndsStream(t *testing.T) {
	e := newEnv(6, 1, client.Config{})
	var l watchLog
	e.at(0, func() { e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "0"}, e.watchLog(&l)) })
	e.at(time.Second, func() { e.create("a") })
	e.at(1500*time.Millisecond, func() { e.Server(0).DropWatchEvents = 1; e.create("b"); e.create("c") })
	e.World.RunFor(2 * time.Second)
	require.ErrorIs(t, l.err, client.ErrWatchBroken)
	require.Len(t, l.events, 1)
	require.Equal(t, 2, l.calls, "one event, then the error, then nothing")
}

func TestWatchGoneAndIdle(t *testing.T) {
	e := newEnv(7, 1, client.Config{})
	var gone, idle watchLog
	e.at(0, func() { e.create("a"); e.create("b") })
	e.at(time.Second, func() {
		e.Backend.Compact()
		e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "1"}, e.watchLog(&gone))
		e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "2"}, e.watchLog(&idle))
	})
	e.at(2*time.Second, func() { e.World.Host(e.Servers[0]).Crash() })
	e.World.RunFor(2 * time.Minute)
	require.True(t, client.IsGone(gone.err), "%v", gone.err)
	require.ErrorIs(t, idle.err, client.ErrWatchIdle)
	// The connection's last frame was read just after 1 s: the health
	// check gives up 30 s + 15 s later.
	require.InDelta(t, float64(time.Second+client.DefaultReadIdleTimeout+client.DefaultPingTimeout), float64(idle.errAt), float64(10*time.Millisecond))
}

func TestWatchBookmarksKeepStreamAlive(t *testing.T) {
	e := newEnv(8, 1, client.Config{})
	e.Backend.BookmarkEvery = time.Minute
	e.World.Host(e.Servers[0]).Crash()
	e.World.Host(e.Servers[0]).Restart()
	var l watchLog
	e.at(0, func() { e.c.Pods("default").Watch(client.ListOptions{AllowWatchBookmarks: true}, e.watchLog(&l)) })
	e.World.RunFor(10 * time.Minute)
	require.NoError(t, l.err)
	require.GreaterOrEqual(t, len(l.events), 9)
	require.Equal(t, apiwire.Bookmark, l.events[0].Type)
}

// TestWatchClosedByServer: a stream the server closes cleanly ends with
// ErrWatchClosed after the events before it, and nothing follows.
func TestWatchClosedByServer(t *testing.T) {
	e := newEnv(9, 1, client.Config{})
	var l watchLog
	e.at(0, func() { e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "0"}, e.watchLog(&l)) })
	e.at(time.Second, func() { e.create("a") })
	e.at(2*time.Second, func() { e.Server(0).CloseWatches() })
	e.at(3*time.Second, func() { e.create("b") })
	e.World.RunFor(4 * time.Second)
	require.ErrorIs(t, l.err, client.ErrWatchClosed)
	require.InDelta(t, float64(2*time.Second), float64(l.errAt), float64(50*time.Millisecond))
	require.Len(t, l.events, 1)
	require.Equal(t, 2, l.calls, "one event, then the end, then nothing")
}

// TestWatchCustomResource: the fake server streams custom objects on the
// resource they were written under (a watch's initial ADDED events, then
// live ones); it once looked their kind up among the built-in kinds and
// panicked.
func TestWatchCustomResource(t *testing.T) {
	widgets := model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true}
	e := newEnv(7, 1, client.Config{})
	var l watchLog
	create := func(name string) {
		e.c.CustomResources(widgets, "default").Create(model.NewCustomObject(widgets, "default", name), func(model.Object, error) {})
	}
	e.at(0, func() { create("a") })
	e.at(time.Second, func() { e.c.CustomResources(widgets, "default").Watch(client.ListOptions{}, e.watchLog(&l)) })
	e.at(2*time.Second, func() { create("b"); e.create("not-a-widget") })
	e.World.RunFor(3 * time.Second)
	require.NoError(t, l.err)
	require.Len(t, l.events, 2, "a (initial), b; the pod is not on the stream")
	for i, name := range []string{"a", "b"} {
		require.Equal(t, "Widget", l.events[i].Object.Kind())
		require.Equal(t, name, l.events[i].Object.GetObjectMeta().Name)
	}
}
