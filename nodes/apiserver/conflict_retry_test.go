package apiserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestReadModifyWriteRetriesWithoutLimit: sixteen merge patches of one pod,
// sent at once through three replicas, each add their own annotation. They
// race on the key's mod_revision, so the last to commit loses the race many
// times over; each loss is retried from the current value, without a limit
// on the tries, and every patch succeeds with nothing lost. The real
// GuaranteedUpdate loops until it writes (k8s.io/apiserver,
// pkg/storage/etcd3/store.go, GuaranteedUpdate: `for {}`; the patch handler,
// pkg/endpoints/handlers/patch.go, adds no cap of its own).
func TestReadModifyWriteRetriesWithoutLimit(t *testing.T) {
	const n = 16
	tw := newWorld(t, 41, 3, nil)
	tw.must(0, create(newPod("a")))
	tw.run(time.Second)
	var answers []func() *apiwire.Response
	for i := range n {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"p%d":"x"}}}`, i)
		answers = append(answers, tw.send(i%3, &apiwire.Request{User: "admin", Verb: apiwire.VerbPatch, Resource: "pods",
			Namespace: "default", Name: "a", Patch: []byte(patch)}))
	}
	for i, answer := range answers {
		resp := answer()
		require.True(t, resp.Status.OK(), "patch %d: %+v", i, resp.Status)
	}
	pod := tw.must(0, getPod("a")).Object.(*model.Pod)
	for i := range n {
		assert.Equal(t, "x", pod.Annotations[fmt.Sprintf("p%d", i)], "patch %d applied", i)
	}
}
