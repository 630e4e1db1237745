package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestWatchObeysRetryAfter: a watch refused with a 429 that carries a
// Retry-After (a watch cache that is initializing) is sent again a second
// later, as client-go's rest.Request.Watch does (rest/with_retry.go,
// IsNextRetry: checkWait), and the caller sees only the stream that
// finally opens. (Before: the first 429 ended the watch, and a reflector
// spent a step of its backoff on every one of them.)
func TestWatchObeysRetryAfter(t *testing.T) {
	e := newEnv(7, 1, client.Config{})
	e.Server(0).Initializing = 3
	var l watchLog
	e.at(0, func() { e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "0"}, e.watchLog(&l)) })
	e.at(5*time.Second, func() { e.create("a") })
	e.World.RunFor(6 * time.Second)
	require.NoError(t, l.err)
	require.Equal(t, 4, e.Server(0).Requests[apiwire.VerbWatch], "three refusals, then the stream")
	require.Len(t, l.events, 1)
	require.Equal(t, "a", l.events[0].Object.GetObjectMeta().Name)
}

// TestRetryAfterGivesUpAfterMaxRetries: client-go sends a request at most
// MaxRetries times again (rest/request.go, NewRequest: maxRetries 10);
// then the caller gets the 429.
func TestRetryAfterGivesUpAfterMaxRetries(t *testing.T) {
	e := newEnv(8, 1, client.Config{})
	e.Server(0).Initializing = 100
	var r result
	e.at(0, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&r)) })
	e.World.RunFor(20 * time.Second)
	require.True(t, r.done)
	require.True(t, client.IsTooManyRequests(r.err), "%v", r.err)
	require.Equal(t, 1+client.MaxRetries, e.Server(0).Requests[apiwire.VerbGet])
	require.InDelta(t, float64(client.MaxRetries), time.Duration(r.at).Seconds(), 0.1, "a second between attempts")
}

// TestStoppedWatchIsNotRetried: a watch stopped while it waits out a
// Retry-After is not sent again (client-go: its context is done).
func TestStoppedWatchIsNotRetried(t *testing.T) {
	e := newEnv(9, 1, client.Config{})
	e.Server(0).Initializing = 100
	var l watchLog
	var w *client.Watcher
	e.at(0, func() { w = e.c.Pods("default").Watch(client.ListOptions{ResourceVersion: "0"}, e.watchLog(&l)) })
	e.at(2500*time.Millisecond, func() { w.Stop() })
	e.World.RunFor(10 * time.Second)
	require.Equal(t, 3, e.Server(0).Requests[apiwire.VerbWatch])
	require.Zero(t, l.calls, "a stopped watch reports nothing")
}
