package deployment

import (
	"testing"

	"github.com/kubesim/kubesim/model"
)

// TestPlanOldReplicaSetsBounds checks the scale-down of a rolling update
// against the real reconcileOldReplicaSets, cleanupUnhealthyReplicas and
// scaleDownOldReplicaSetsForRollingUpdate (kubernetes/kubernetes
// pkg/controller/deployment/rolling.go), for 10 replicas, maxSurge 3 and
// maxUnavailable 2 (minAvailable 8). maxScaledDown = all pods - 8 - the new
// ReplicaSet's unavailable pods caps the unhealthy old pods removed first;
// then old ReplicaSets shrink, oldest first, by the available pods above 8.
// The first three cases are the worked examples of rolling.go's comments.
func TestPlanOldReplicaSetsBounds(t *testing.T) {
	d := rolling(10, model.FromInt(3), model.FromInt(2))
	cases := []planOldCase{
		// 13 - 8 - 5 = 0: a failed old pod is not cleaned up while the
		// new pods crash-loop.
		{"new pods crash-loop: 13-8-5 leaves no room",
			[]*model.ReplicaSet{rsAt("a", 1, 8, 7, 0)}, rsAt("n", 2, 5, 0, 0),
			map[string]int32{}, true},
		// Rolled back to the good ReplicaSet: 13 - 8 - 1 = 4 of the
		// crash-looping pods go.
		{"rolled back: 13-8-1 = 4 crash-looping pods go",
			[]*model.ReplicaSet{rsAt("bad", 2, 5, 0, 0)}, rsAt("good", 1, 8, 7, 0),
			map[string]int32{"bad": 1}, true},
		// Rolled over to a third template: 13 - 8 - 0 = 5, all of them
		// the unhealthy pods of the second ReplicaSet.
		{"rolled over: 13-8-0 = 5 unhealthy pods go",
			[]*model.ReplicaSet{rsAt("a", 1, 8, 8, 0), rsAt("b", 2, 5, 0, 0)}, rsAt("n", 3, 0, 0, 0),
			map[string]int32{"b": 0}, true},
		// The old ReplicaSet was just scaled 9 -> 8 and its status still
		// counts 9 available: 11 - 8 - 3 = 0, so nothing more.
		{"stale status, no room: nothing",
			[]*model.ReplicaSet{rsAt("a", 1, 8, 9, 0)}, rsAt("n", 2, 3, 0, 0),
			map[string]int32{}, true},
		// The cleanup used all of 13 - 8 - 0 = 5 on a and stops there, so
		// b's stale status is never looked at; 9 available allow one more.
		{"cleanup stops at maxScaledDown",
			[]*model.ReplicaSet{rsAt("a", 1, 6, 1, 0), rsAt("b", 2, 4, 5, 0)}, rsAt("n", 3, 3, 3, 0),
			map[string]int32{"a": 0}, true},
		// 5 may go: 3 unhealthy of a, then the 2 left of b's 3.
		{"cleanup shares maxScaledDown oldest first",
			[]*model.ReplicaSet{rsAt("a", 1, 5, 2, 0), rsAt("b", 2, 5, 2, 0)}, rsAt("n", 3, 3, 3, 0),
			map[string]int32{"a": 2, "b": 3}, true},
		// 11 available, 3 above 8: a's 2, then 1 of b.
		{"scale-down shares the available surplus oldest first",
			[]*model.ReplicaSet{rsAt("a", 1, 2, 2, 0), rsAt("b", 2, 6, 6, 0)}, rsAt("n", 3, 3, 3, 0),
			map[string]int32{"a": 0, "b": 5}, true},
	}
	runPlanOld(t, d, cases)
}
