package deployment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// saturated marks rs as last scaled for desired replicas.
func saturated(rs *model.ReplicaSet, desired string) *model.ReplicaSet {
	rs.Annotations[DesiredReplicasAnnotation] = desired
	return rs
}

// TestPlanScaleWhichReplicaSets checks which ReplicaSets the real scale()
// (kubernetes/kubernetes pkg/controller/deployment/sync.go) resizes, by
// deploymentutil's FindActiveOrLatest and IsSaturated: a single active
// ReplicaSet, or the newest when none is active, takes all replicas
// (never replicas+maxSurge); none at all is nothing to do; a saturated new
// ReplicaSet (spec, desired-replicas annotation and available pods all at
// replicas) makes the active old ones go to 0; several active ones without
// a saturated new one share replicas+maxSurge in proportion.
func TestPlanScaleWhichReplicaSets(t *testing.T) {
	cases := []struct {
		name  string
		d     *model.Deployment
		newRS *model.ReplicaSet
		old   []*model.ReplicaSet
		want  map[string]int32
	}{
		{"only a new ReplicaSet takes replicas", rolling(6, model.FromInt(1), model.FromInt(1)),
			rsAt("new", 2, 4, 4, 5), nil, map[string]int32{"new": 6}},
		{"created paused, no ReplicaSet: nothing", rolling(6, model.FromInt(1), model.FromInt(1)),
			nil, nil, map[string]int32{}},
		{"template changed while paused: the one old ReplicaSet takes replicas", rolling(6, model.FromInt(1), model.FromInt(1)),
			nil, []*model.ReplicaSet{rsAt("old", 1, 4, 4, 5)}, map[string]int32{"old": 6}},
		{"none active: the newest takes replicas", rolling(3, model.FromInt(1), model.FromInt(1)),
			nil, []*model.ReplicaSet{rsAt("b", 2, 0, 0, 0), rsAt("a", 1, 0, 0, 0)}, map[string]int32{"b": 3}},
		{"saturated new ReplicaSet: old ones go to 0", rolling(10, model.FromInt(3), model.FromInt(2)),
			saturated(rsAt("new", 2, 10, 10, 13), "10"), []*model.ReplicaSet{rsAt("old", 1, 2, 2, 13)},
			map[string]int32{"old": 0}},
		// The proportional example of the Kubernetes documentation, with
		// the new template not yet written to a ReplicaSet: 8 and 5 of 13
		// scaled to 18 (15+3) give 11 and 7.
		{"several active, no new ReplicaSet: proportional", rolling(15, model.FromInt(3), model.FromInt(2)),
			nil, []*model.ReplicaSet{rsAt("a", 1, 8, 8, 13), rsAt("b", 2, 5, 0, 13)},
			map[string]int32{"a": 11, "b": 7}},
		// Three of 2 each, last scaled for 6, now 9+1: each gets
		// round(2*10/6)-2 = 1, and the leftover 1 goes to the first in
		// ReplicaSetsBySizeNewer order, the newest of the equals (the
		// real scale(): nameToSize[rs.Name] += leftover for i == 0 only).
		{"the rounding leftover goes to the first only", rolling(9, model.FromInt(1), model.FromInt(1)),
			nil, []*model.ReplicaSet{rsAt("a", 1, 2, 2, 6), rsAt("b", 2, 2, 2, 6), rsAt("c", 3, 2, 2, 6)},
			map[string]int32{"a": 3, "b": 3, "c": 4}},
		// Two of 4, last scaled for 8, now 10+1 (3 to add): each one's
		// proportion is round(4*11/8)-4 = 2, but only what is left of the
		// 3 may go, so the newer gets 2 and the older 1
		// (getReplicaSetProportion: min(fraction, toAdd-added)).
		{"a proportion is capped by what is left to add", rolling(10, model.FromInt(1), model.FromInt(1)),
			nil, []*model.ReplicaSet{rsAt("a", 1, 4, 4, 8), rsAt("b", 2, 4, 4, 8)},
			map[string]int32{"a": 5, "b": 6}},
		// The bigger one first, whatever their ages: 6 and 2 of 8, now
		// 9+1 (2 to add): round(6*10/8)-6 = 2 (round half away from
		// zero) takes all, and the smaller keeps its 2.
		{"the biggest ReplicaSet is served first", rolling(9, model.FromInt(1), model.FromInt(1)),
			nil, []*model.ReplicaSet{rsAt("big", 1, 6, 6, 8), rsAt("small", 2, 2, 2, 8)},
			map[string]int32{"big": 8, "small": 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.newRS != nil && tc.newRS.Annotations == nil {
				tc.newRS.Annotations = map[string]string{}
			}
			got := map[string]int32{}
			require.NotPanics(t, func() {
				for _, op := range planScale(tc.d, tc.newRS, tc.old) {
					got[op.rs.Name] = op.replicas
				}
			})
			require.Equal(t, tc.want, got)
		})
	}
}
