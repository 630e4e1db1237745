package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestPatchSemanticsAndAblations: a merge patch merges annotations key by
// key, keeps the stored status like an update, and a resourceVersion in it
// is a precondition; merge-patch-replaces-maps removes the first,
// patch-ignores-resourceversion the last.
func TestPatchSemanticsAndAblations(t *testing.T) {
	for _, tc := range []struct {
		name              string
		abl               ablation.Set
		replaces, ignores bool
	}{
		{name: "real"},
		{name: "merge-patch-replaces-maps", abl: ablation.Of(ablation.MergePatchReplacesMaps), replaces: true},
		{name: "patch-ignores-resourceversion", abl: ablation.Of(ablation.PatchIgnoresResourceVersion), ignores: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newWorld(t, 4, 1, func(c *Config) { c.Ablations = tc.abl })
			p := tw.must(0, create(newPod("a"))).Object.(*model.Pod)
			patch := func(body string) *apiwire.Request {
				return &apiwire.Request{User: "admin", Verb: apiwire.VerbPatch, Resource: "pods", Namespace: "default", Name: "a", Patch: []byte(body)}
			}
			tw.must(0, patch(`{"metadata":{"annotations":{"x":"1"}}}`))
			out := tw.must(0, patch(`{"metadata":{"annotations":{"y":"1"}},"status":{"phase":"Failed"}}`)).Object.(*model.Pod)
			assert.Equal(t, model.PodPending, out.Status.Phase, "a patch of the object keeps the stored status")
			_, kept := out.Annotations["x"]
			assert.Equal(t, !tc.replaces, kept, "x survives the patch of y")

			resp := tw.do(0, patch(`{"metadata":{"resourceVersion":"`+p.ResourceVersion+`","labels":{"x":"y"}}}`))
			if tc.ignores {
				require.True(t, resp.Status.OK(), "%+v", resp.Status)
			} else {
				assert.Equal(t, 409, resp.Status.Code)
			}
		})
	}
}
