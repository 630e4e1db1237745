package client_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/stretchr/testify/require"
)

func TestVerbsAndErrors(t *testing.T) {
	e := newEnv(1, 1, client.Config{User: "admin"})
	pods := e.c.Pods("default")
	var created, dup, got, missing, stale, updated, status, patched, bound, rebind, badDel, deleted result
	var list *client.ObjectList
	e.at(0, func() { pods.Create(pod("a", map[string]string{"app": "web"}, "v1"), e.rec(&created)) })
	e.World.RunFor(time.Second)
	require.NoError(t, created.err)
	rv := created.obj.GetObjectMeta().ResourceVersion
	require.NotEmpty(t, rv)

	e.at(0, func() {
		pods.Create(pod("a", nil, ""), e.rec(&dup))
		pods.Create(pod("b", map[string]string{"app": "db"}, ""), func(model.Object, error) {})
		pods.Get("a", client.GetOptions{}, e.rec(&got))
		pods.Get("zz", client.GetOptions{}, e.rec(&missing))
	})
	e.World.RunFor(time.Second)
	require.True(t, client.IsAlreadyExists(dup.err), "%v", dup.err)
	require.False(t, client.IsConflict(dup.err))
	require.NoError(t, got.err)
	require.Equal(t, "v1", client.DefaultValueOf(got.obj))
	require.True(t, client.IsNotFound(missing.err))
	require.False(t, client.IsUnknownOutcome(missing.err))

	e.at(0, func() {
		p := got.obj.(*model.Pod).DeepCopy()
		p.Annotations[client.ValueAnnotation] = "v2"
		pods.Update(p, e.rec(&updated))
	})
	e.World.RunFor(time.Second)
	require.NoError(t, updated.err)
	e.at(0, func() {
		pods.Update(got.obj, e.rec(&stale)) // carries the old resourceVersion
		p := updated.obj.(*model.Pod).DeepCopy()
		p.Status.Phase = model.PodRunning
		pods.UpdateStatus(p, e.rec(&status))
	})
	e.World.RunFor(time.Second)
	require.True(t, client.IsConflict(stale.err), "%v", stale.err)
	require.NoError(t, status.err)

	e.at(0, func() {
		pods.Patch("a", []byte(`{"metadata":{"annotations":{"kubesim.io/value":"v3"}}}`), e.rec(&patched))
		pods.Bind("a", "node-1", e.rec(&bound))
		pods.List(client.ListOptions{LabelSelector: "app=web"}, func(l *client.ObjectList, err error) {
			require.NoError(t, err)
			list = l
		})
	})
	e.World.RunFor(time.Second)
	require.NoError(t, patched.err)
	require.Equal(t, "v3", client.DefaultValueOf(patched.obj))
	require.NoError(t, bound.err)
	require.Equal(t, "node-1", bound.obj.(*model.Pod).Spec.NodeName)
	require.Len(t, list.Items, 1)
	require.Equal(t, "a", list.Items[0].GetObjectMeta().Name)
	require.NotEmpty(t, list.ResourceVersion)

	e.at(0, func() {
		pods.Bind("a", "node-2", e.rec(&rebind))
		pods.Delete("a", client.DeleteOptions{Preconditions: &apiwire.Preconditions{ResourceVersion: rv}}, e.rec(&badDel))
	})
	e.World.RunFor(time.Second)
	require.True(t, client.IsConflict(rebind.err))
	require.True(t, client.IsConflict(badDel.err))
	e.at(0, func() { pods.Delete("a", client.DeleteOptions{}, e.rec(&deleted)) })
	e.World.RunFor(time.Second)
	require.NoError(t, deleted.err)
	require.Equal(t, "a", deleted.obj.GetObjectMeta().Name)
}

func TestErrorHelpers(t *testing.T) {
	mk := func(code int, reason apiwire.StatusReason) error {
		return client.NewStatusError(apiwire.Status{Code: code, Reason: reason}, "s")
	}
	require.True(t, client.IsGone(mk(410, apiwire.ReasonGone)))
	require.True(t, client.IsResourceExpired(mk(410, "")))
	require.True(t, client.IsForbidden(mk(403, apiwire.ReasonForbidden)))
	require.True(t, client.IsInvalid(mk(422, apiwire.ReasonInvalid)))
	require.True(t, client.IsTimeout(mk(504, apiwire.ReasonTimeout)))
	require.True(t, client.IsUnknownOutcome(mk(504, apiwire.ReasonTimeout)))
	require.True(t, client.IsServerTimeout(mk(500, apiwire.ReasonServerTimeout)))
	require.True(t, client.IsServiceUnavailable(mk(503, apiwire.ReasonServiceUnavailable)))
	require.True(t, client.IsConflict(mk(409, "")), "code fallback")
	require.False(t, client.IsConflict(mk(409, apiwire.ReasonAlreadyExists)))
	require.True(t, client.IsUnknownOutcome(client.ErrNoAnswer))
	require.False(t, client.IsUnknownOutcome(mk(409, apiwire.ReasonConflict)))
	require.False(t, client.IsNotFound(client.ErrNoAnswer))
}

func TestTracing(t *testing.T) {
	e := newEnv(2, 1, client.Config{User: "admin", Tracing: true, Name: "w1"})
	var calls []*apitrace.Call
	var rets []*apitrace.Return
	e.World.Subscribe(func(ev *sim.Event) {
		switch d := ev.Data.(type) {
		case *apitrace.Call:
			calls = append(calls, d)
		case *apitrace.Return:
			rets = append(rets, d)
		}
	})
	var r1, r2 result
	e.at(0, func() {
		e.c.Pods("default").Create(pod("x", nil, "val-1"), e.rec(&r1))
		e.c.Pods("default").Get("nope", client.GetOptions{}, e.rec(&r2))
	})
	e.World.RunFor(time.Second)
	require.Len(t, calls, 2)
	require.Len(t, rets, 2)
	require.Equal(t, apitrace.Call{Client: "w1", Op: 1, User: "admin", Verb: "create", Resource: "pods", Key: "default/x", Value: "val-1"}, *calls[0])
	require.Equal(t, 200, rets[0].Code)
	require.True(t, rets[0].Found)
	require.Equal(t, "val-1", rets[0].Value)
	require.Equal(t, 404, rets[1].Code)
	require.False(t, rets[1].Found)
	require.Equal(t, "api-1", rets[1].Server)
}

// TestFailoverWhenServerDown: a request to a server that is down fails
// when the new connection's health check gives up (nothing read for 30 s,
// then no PING acknowledgement for 15 s: golang.org/x/net/http2
// transport.go healthCheck), and the balancer moves on.
func TestFailoverWhenServerDown(t *testing.T) {
	e := newEnv(3, 2, client.Config{User: "admin", Tracing: true})
	first := e.c.Server()
	e.World.Host(first).Crash()
	var r1, r2 result
	e.at(0, func() { e.c.Pods("default").Create(pod("a", nil, "v"), e.rec(&r1)) })
	detect := client.DefaultReadIdleTimeout + client.DefaultPingTimeout
	e.World.RunFor(detect + time.Second)
	require.True(t, r1.done)
	require.True(t, client.IsUnknownOutcome(r1.err), "%v", r1.err)
	require.ErrorIs(t, r1.err, client.ErrConnectionLost)
	require.Equal(t, detect, time.Duration(r1.at))
	require.NotEqual(t, first, e.c.Server(), "the balancer moved on")
	e.at(0, func() { e.c.Pods("default").Create(pod("a", nil, "v"), e.rec(&r2)) })
	e.World.RunFor(time.Second)
	require.NoError(t, r2.err)
}

func TestFailoverOn503(t *testing.T) {
	e := newEnv(4, 3, client.Config{User: "admin"})
	first := e.c.Server()
	for i, id := range e.Servers {
		if id == first {
			e.Server(i).Unavailable = true
		}
	}
	var r1, r2 result
	e.at(0, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&r1)) })
	e.World.RunFor(time.Second)
	require.True(t, client.IsServiceUnavailable(r1.err))
	require.NotEqual(t, first, e.c.Server())
	e.at(0, func() { e.c.Pods("default").Get("a", client.GetOptions{}, e.rec(&r2)) })
	e.World.RunFor(time.Second)
	require.True(t, client.IsNotFound(r2.err))
}

func TestStartsAtSeededRandomServer(t *testing.T) {
	seen := map[sim.HostID]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		e := newEnv(seed, 3, client.Config{})
		seen[e.c.Server()] = true
		require.Equal(t, e.c.Server(), newEnv(seed, 3, client.Config{}).c.Server(), "deterministic")
	}
	require.Len(t, seen, 3)
}

// TestRequestKey: a request is named namespace/name, or by its
// generateName when the API server is to pick the name (a ReplicaSet's
// pods are created so), and cluster-scoped objects by name alone.
func TestRequestKey(t *testing.T) {
	pod := &model.Pod{ObjectMeta: model.ObjectMeta{GenerateName: "web-", Namespace: "default"}}
	cases := []struct {
		req  apiwire.Request
		want string
	}{
		{apiwire.Request{Verb: apiwire.VerbGet, Resource: "pods", Namespace: "default", Name: "web-1"}, "default/web-1"},
		{apiwire.Request{Verb: apiwire.VerbCreate, Resource: "pods", Namespace: "default", Object: pod}, "default/web-"},
		{apiwire.Request{Verb: apiwire.VerbUpdate, Resource: "pods", Namespace: "default", Name: "web-2", Object: pod}, "default/web-2"},
		{apiwire.Request{Verb: apiwire.VerbList, Resource: "pods", Namespace: "default"}, "default/"},
		{apiwire.Request{Verb: apiwire.VerbGet, Resource: "nodes", Name: "node-1"}, "node-1"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, client.RequestKey(&c.req), "%+v", c.req)
	}
}
