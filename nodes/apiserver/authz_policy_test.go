package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// policyWorld is a cluster whose API servers hold a policy that lets the
// service account team/op create, read and watch pods in namespace team,
// and a host "op" whose client authenticates as it.
type policyWorld struct {
	c       *apitest.Cluster
	op      *client.Client
	refused []*apitrace.Forbidden
	admits  []*apitrace.Admit
}

var opUser = rbac.ServiceAccountUser("team", "op")

func newPolicyWorld(t *testing.T) *policyWorld {
	pol := rbac.Default().Allow(rbac.ServiceAccount("team", "op"), "team",
		rbac.Rule{Verbs: []string{"get", "list", "watch", "create"}, APIGroups: []string{""}, Resources: []string{"pods"}})
	pw := &policyWorld{c: apitest.New(31, 3, 2, func(cfg *apiserver.Config) { cfg.Policy = pol })}
	pw.c.W.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *apitrace.Forbidden:
			pw.refused = append(pw.refused, d)
		case *apitrace.Admit:
			pw.admits = append(pw.admits, d)
		}
	})
	pw.c.AddHost("op", func(h *sim.Host) {
		pw.op = client.New(h, client.Config{Name: "op", User: opUser, Servers: pw.c.Servers})
	})
	pw.c.Settle()
	return pw
}

// do runs one call of the operator's client to its end.
func (pw *policyWorld) do(t *testing.T, fn func(done client.ObjectCallback)) (model.Object, error) {
	t.Helper()
	var obj model.Object
	var err error
	finished := false
	fn(func(o model.Object, e error) { obj, err, finished = o, e, true })
	for i := 0; i < 300 && !finished; i++ {
		pw.c.Run(100 * time.Millisecond)
	}
	require.True(t, finished, "no answer")
	return obj, err
}

func pod(ns, name string) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}
}

// TestServiceAccountPolicy: a service account a test adds writes what its
// binding allows, and anything else is a 403 that the trace shows
// (apitrace.Forbidden) and the client returns as a typed error
// (client.IsForbidden), with the real API server's message
// (k8s.io/apiserver, pkg/endpoints/handlers/responsewriters/errors.go,
// ForbiddenStatusError).
func TestServiceAccountPolicy(t *testing.T) {
	pw := newPolicyWorld(t)

	_, err := pw.do(t, func(done client.ObjectCallback) { pw.op.Pods("team").Create(pod("team", "p1"), done) })
	require.NoError(t, err, "the binding allows create in team")
	require.NotEmpty(t, pw.admits)
	last := pw.admits[len(pw.admits)-1]
	assert.Equal(t, opUser, last.User)
	assert.Equal(t, "team/p1", last.Key)
	_, err = pw.do(t, func(done client.ObjectCallback) { pw.op.Pods("team").Get("p1", client.GetOptions{}, done) })
	require.NoError(t, err)

	cases := []struct {
		name    string
		call    func(done client.ObjectCallback)
		message string
		want    apitrace.Forbidden
	}{
		{"create outside the Role's namespace",
			func(done client.ObjectCallback) { pw.op.Pods("default").Create(pod("default", "p2"), done) },
			`pods is forbidden: User "system:serviceaccount:team:op" cannot create resource "pods" in API group "" in the namespace "default"`,
			apitrace.Forbidden{Verb: "create", Resource: "pods", Namespace: "default", Name: "p2"}},
		{"a verb the Role lacks",
			func(done client.ObjectCallback) { pw.op.Pods("team").Delete("p1", client.DeleteOptions{}, done) },
			`pods "p1" is forbidden: User "system:serviceaccount:team:op" cannot delete resource "pods" in API group "" in the namespace "team"`,
			apitrace.Forbidden{Verb: "delete", Resource: "pods", Namespace: "team", Name: "p1"}},
		{"a subresource the Role lacks",
			func(done client.ObjectCallback) { pw.op.Pods("team").Bind("p1", "n1", done) },
			`pods "p1" is forbidden: User "system:serviceaccount:team:op" cannot create resource "pods/binding" in API group "" in the namespace "team"`,
			apitrace.Forbidden{Verb: "bind", Resource: "pods", Namespace: "team", Name: "p1"}},
		{"a resource of another group",
			func(done client.ObjectCallback) { pw.op.Leases("team").Get("l", client.GetOptions{}, done) },
			`leases.coordination.k8s.io "l" is forbidden: User "system:serviceaccount:team:op" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "team"`,
			apitrace.Forbidden{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "team", Name: "l"}},
		{"a cluster-scoped resource",
			func(done client.ObjectCallback) { pw.op.Nodes().Get("n1", client.GetOptions{}, done) },
			`nodes "n1" is forbidden: User "system:serviceaccount:team:op" cannot get resource "nodes" in API group "" at the cluster scope`,
			apitrace.Forbidden{Verb: "get", Resource: "nodes", Name: "n1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(pw.refused)
			_, err := pw.do(t, c.call)
			require.Error(t, err)
			assert.True(t, client.IsForbidden(err), "%v", err)
			st, ok := client.StatusOf(err)
			require.True(t, ok)
			assert.Equal(t, 403, st.Code)
			assert.Equal(t, apiwire.ReasonForbidden, st.Reason)
			assert.Equal(t, c.message, st.Message)
			assert.Equal(t, c.message, err.Error())
			require.Len(t, pw.refused, before+1, "one traced refusal")
			got := *pw.refused[before]
			assert.NotEmpty(t, got.Server)
			want := c.want
			want.Server, want.User, want.By, want.Message = got.Server, opUser, "RBAC", c.message
			assert.Equal(t, want, got)
		})
	}
	_, err = pw.c.Get("pods", "team", "p1")
	require.NoError(t, err, "the refused delete changed nothing")
}

// TestRefusedInformer: an informer whose list is refused never syncs, and
// every attempt is a traced refusal; it backs off between attempts and
// lists again, as client-go's reflector does (tools/cache/reflector.go:
// ListAndWatch returns the error, Run's wait.BackoffUntil retries after the
// backoff manager's delay). An informer the policy allows syncs.
func TestRefusedInformer(t *testing.T) {
	pw := newPolicyWorld(t)
	_, err := pw.c.Create(pod("team", "p1"))
	require.NoError(t, err)
	all := cache.NewInformer(pw.op, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: "pods"}})
	own := cache.NewInformer(pw.op, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Name: "op/team-pods", Resource: "pods", Namespace: "team"}})
	var at []sim.Time
	pw.c.W.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*apitrace.Forbidden); ok && d.User == opUser {
			at = append(at, e.At)
		}
	})
	all.Run()
	own.Run()
	pw.c.Run(60 * time.Second)

	assert.True(t, own.HasSynced())
	assert.Len(t, own.GetStore().List(), 1)
	assert.False(t, all.HasSynced(), "a refused list never syncs")
	require.GreaterOrEqual(t, len(at), 4, "a traced refusal per attempt")
	for _, f := range pw.refused {
		assert.Equal(t, "list", f.Verb)
		assert.Equal(t, "pods", f.Resource)
		assert.Empty(t, f.Namespace, "an all-namespace list is at the cluster scope")
		assert.Equal(t, `pods is forbidden: User "system:serviceaccount:team:op" cannot list resource "pods" in API group "" at the cluster scope`, f.Message)
	}
	// The attempts are spaced by the reflector's backoff, at least its
	// initial 800 ms, and at most its 30 s cap plus jitter.
	for i := 1; i < len(at); i++ {
		gap := time.Duration(at[i] - at[i-1])
		assert.GreaterOrEqual(t, gap, cache.BackoffInitial)
		assert.LessOrEqual(t, gap, 2*cache.BackoffMax+time.Second)
	}
}
