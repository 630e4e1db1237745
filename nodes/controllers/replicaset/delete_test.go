package replicaset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// deletePods answers once every delete answered, with the first error; a
// refused delete will never be observed, so its expectation is lowered at
// once, and only deletes the API server accepted are traced
// (kubernetes/kubernetes pkg/controller/replicaset/replica_set.go, func
// manageReplicas: wg.Wait, then the first error of errCh; DeletionObserved
// on a failed DeletePod). The controller runs as kubelet n1 here, which
// may delete only the pods bound to n1 (NodeRestriction): one delete is
// accepted, one refused.
func TestDeletePodsWaitsForAllAndLowersRefused(t *testing.T) {
	e := newEnv(t, 16, envOpts{user: "system:node:n1"})
	var traced []string
	e.W.Subscribe(func(ev *sim.Event) {
		if d, ok := ev.Data.(*spoketrace.ControllerDelete); ok {
			traced = append(traced, d.Key)
		}
	})
	e.mustCreate(&model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
	var victims []*model.Pod
	for _, name := range []string{"bound", "unbound"} {
		victims = append(victims, e.mustCreate(orphanPod(name, "victim")).(*model.Pod))
	}
	_, err := e.call(func(done client.ObjectCallback) { e.Admin().Pods(ns).Bind("bound", "n1", done) })
	require.NoError(t, err)

	const key = ns + "/victims"
	e.ctl.exp.ExpectDeletions(key, []string{ns + "/bound", ns + "/unbound"})
	answers := 0
	var got error
	var tracedAtAnswer []string
	e.ctl.deletePods(key, "owner", victims, func(err error) {
		answers++
		got = err
		tracedAtAnswer = append([]string(nil), traced...)
	})
	e.Run(3 * time.Second)
	require.Equal(t, 1, answers)
	require.True(t, client.IsForbidden(got), "the refused delete's error: %v", got)
	require.Equal(t, []string{ns + "/bound"}, tracedAtAnswer, "both answered first; only the accepted delete is traced")
	require.Equal(t, map[string]bool{ns + "/bound": true}, e.ctl.exp.deletes[key], "the refused delete is no longer expected")
	_, del, _ := e.ctl.exp.pending(key)
	require.Equal(t, int64(1), del)
}
