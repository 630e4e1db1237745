package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// newRS returns a valid ReplicaSet with spec.replicas n.
func newRS(name string, n int32) *model.ReplicaSet {
	labels := map[string]string{"app": name}
	return &model.ReplicaSet{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.ReplicaSetSpec{Replicas: model.Ptr(n), Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}}}
}

// TestStatusAblations: update keeps the stored status and update-status the
// stored spec, and both honour resourceVersion; each ablation removes one
// of the three.
func TestStatusAblations(t *testing.T) {
	for _, tc := range []struct {
		name                                    string
		abl                                     ablation.Set
		specByStatus, statusByUpdate, staleWins bool
	}{
		{name: "real"},
		{name: "status-update-writes-spec", abl: ablation.Of(ablation.StatusWritesSpec), specByStatus: true},
		{name: "update-writes-status", abl: ablation.Of(ablation.UpdateWritesStatus), statusByUpdate: true},
		{name: "apiserver-status-last-write-wins", abl: ablation.Of(ablation.StatusLastWriteWins), staleWins: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newWorld(t, 4, 1, func(c *Config) { c.Ablations = tc.abl })
			rs := tw.must(0, create(newRS("r", 1))).Object.(*model.ReplicaSet)

			s := rs.DeepCopy()
			s.Status.Replicas = 5
			s.Spec.Replicas = model.Ptr[int32](9)
			out := tw.must(0, update("admin", apiwire.VerbUpdateStatus, s)).Object.(*model.ReplicaSet)
			assert.Equal(t, int32(5), out.Status.Replicas)
			assert.Equal(t, tc.specByStatus, *out.Spec.Replicas == 9, "spec written by update-status")
			assert.Equal(t, tc.specByStatus, out.Generation == 2, "generation follows the spec")

			u := out.DeepCopy()
			u.Spec.Replicas = model.Ptr[int32](3)
			u.Status.Replicas = 7
			out2 := tw.must(0, update("admin", apiwire.VerbUpdate, u)).Object.(*model.ReplicaSet)
			assert.Equal(t, int32(3), *out2.Spec.Replicas)
			assert.Equal(t, tc.statusByUpdate, out2.Status.Replicas == 7, "status written by update")

			stale := out.DeepCopy() // read before the update
			stale.Status.Replicas = 6
			resp := tw.do(0, update("admin", apiwire.VerbUpdateStatus, stale))
			if tc.staleWins {
				assert.True(t, resp.Status.OK(), "%+v", resp.Status)
			} else {
				assert.Equal(t, 409, resp.Status.Code)
			}
			// Update's precondition holds under every status ablation.
			assert.Equal(t, 409, tw.do(0, update("admin", apiwire.VerbUpdate, out.DeepCopy())).Status.Code)
		})
	}
}
