package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// TestOwnersTrace: the API server traces, once etcd confirmed them, the
// writes of pods and ReplicaSets that create them, change their owners or
// labels, mark them for deletion or remove them, and no other write.
func TestOwnersTrace(t *testing.T) {
	c := apitest.New(5, 3, 1, nil)
	var got []apitrace.Owners
	c.W.Subscribe(func(e *sim.Event) {
		if d, ok := e.Data.(*apitrace.Owners); ok {
			got = append(got, *d)
		}
	})
	c.Settle()
	replicas := int32(1)
	rsObj, err := c.Create(&model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: model.ReplicaSetSpec{Replicas: &replicas, Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "web:1"}}}}}})
	require.NoError(t, err)
	rs := rsObj.(*model.ReplicaSet)
	obj, err := c.Create(&model.Pod{ObjectMeta: model.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "web:1"}}}})
	require.NoError(t, err)
	pod := obj.(*model.Pod)
	wait := func(call func(done client.ObjectCallback)) {
		t.Helper()
		done := false
		call(func(_ model.Object, e error) { err, done = e, true })
		for i := 0; i < 300 && !done; i++ {
			c.Run(100 * time.Millisecond)
		}
		require.True(t, done)
		require.NoError(t, err)
	}
	update := func(mutate func(p *model.Pod)) {
		t.Helper()
		cur, err := c.Get(model.ResourcePodsName, "default", "p")
		require.NoError(t, err)
		p := cur.(*model.Pod).DeepCopy()
		mutate(p)
		wait(func(done client.ObjectCallback) { c.Admin().Pods("default").Update(p, done) })
	}
	update(func(p *model.Pod) {
		p.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(rs, model.KindReplicaSet)}
	})
	update(func(p *model.Pod) { p.Annotations = map[string]string{"note": "no owner change"} })
	update(func(p *model.Pod) { p.Labels = map[string]string{"app": "debug"} })
	wait(func(done client.ObjectCallback) { c.Admin().Pods("default").Delete("p", client.DeleteOptions{}, done) })

	rsOwner := "ReplicaSet/" + string(rs.UID) + "*"
	want := []apitrace.Owners{
		{Verb: "create", Resource: "replicasets", Key: "default/web", UID: string(rs.UID), Labels: "", Selector: "app=web"},
		{Verb: "create", Resource: "pods", Key: "default/p", UID: string(pod.UID), Labels: "app=web"},
		{Verb: "update", Resource: "pods", Key: "default/p", UID: string(pod.UID), Owners: rsOwner, Labels: "app=web"},
		{Verb: "update", Resource: "pods", Key: "default/p", UID: string(pod.UID), OldOwners: rsOwner, Owners: rsOwner, Labels: "app=debug"},
		{Verb: "delete", Resource: "pods", Key: "default/p", UID: string(pod.UID), OldOwners: rsOwner, Owners: rsOwner, Labels: "app=debug", Removed: true}, // never bound: removed at once
	}
	for i := range got {
		got[i].Server = ""
	}
	require.Equal(t, want, got)
}
