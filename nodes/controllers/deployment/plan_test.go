package deployment

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// rsAt returns a ReplicaSet of size replicas with available pods, created
// at second created, last scaled for maxReplicas (0: no annotation).
func rsAt(name string, created int, replicas, available, maxReplicas int32) *model.ReplicaSet {
	rs := &model.ReplicaSet{}
	rs.Name, rs.UID = name, model.UID(name)
	rs.CreationTimestamp = model.Time(created) * 1e9
	rs.Spec.Replicas = model.Ptr(replicas)
	rs.Status.Replicas, rs.Status.AvailableReplicas = replicas, available
	if maxReplicas > 0 {
		rs.Annotations = map[string]string{MaxReplicasAnnotation: strconv.Itoa(int(maxReplicas))}
	}
	return rs
}

func rolling(replicas int32, surge, unavailable model.IntOrString) *model.Deployment {
	d := newDeployment("web", replicas, "web:1")
	d.Spec.Strategy = model.DeploymentStrategy{Type: model.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &model.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	return d
}

func TestComputeHash(t *testing.T) {
	a := newDeployment("web", 1, "web:1").Spec.Template
	b := newDeployment("web", 1, "web:2").Spec.Template
	h := ComputeHash(&a, nil)
	require.Equal(t, h, ComputeHash(&a, nil), "deterministic")
	require.NotEqual(t, h, ComputeHash(&b, nil), "depends on the template")
	require.NotEqual(t, h, ComputeHash(&a, model.Ptr(int32(1))), "depends on the collision count")
	for _, r := range h {
		require.True(t, strings.ContainsRune(safeAlphabet, r), "%q is not in the safe alphabet", r)
	}
	withHash := a
	withHash.Labels = map[string]string{"app": "web", DefaultDeploymentUniqueLabelKey: h}
	require.True(t, equalIgnoreHash(&a, &withHash))
	require.False(t, equalIgnoreHash(&a, &b))
}

func TestNewRSNewReplicas(t *testing.T) {
	pct, num := model.FromString, model.FromInt
	cases := []struct {
		name     string
		d        *model.Deployment
		old, cur int32
		want     int32
	}{
		{"surge 25% of 10 rounds up to 3", rolling(10, pct("25%"), pct("25%")), 10, 0, 3},
		{"no room above replicas+surge", rolling(10, pct("25%"), pct("25%")), 10, 3, 3},
		{"room left by scaled-down old pods", rolling(10, pct("25%"), pct("25%")), 8, 3, 5},
		{"never above replicas", rolling(4, num(2), num(0)), 1, 3, 4},
		{"surge 0 waits for old pods to go", rolling(4, num(0), num(1)), 4, 0, 0},
		{"recreate takes all replicas", newDeployment("web", 5, "x"), 5, 0, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.d.Spec.Strategy.Type == "" {
				tc.d.Spec.Strategy.Type = model.RecreateDeploymentStrategyType
			}
			old, cur := rsAt("old", 1, tc.old, tc.old, 0), rsAt("new", 2, tc.cur, 0, 0)
			require.Equal(t, tc.want, newRSNewReplicas(tc.d, []*model.ReplicaSet{old, cur}, cur))
		})
	}
}

func TestPlanOldReplicaSets(t *testing.T) {
	d := rolling(10, model.FromInt(3), model.FromInt(2))
	cases := []planOldCase{
		{"scale down to keep 8 available", []*model.ReplicaSet{rsAt("a", 1, 10, 10, 0)}, rsAt("n", 3, 3, 0, 0),
			map[string]int32{"a": 8}, true},
		{"new pods not available: no room", []*model.ReplicaSet{rsAt("a", 1, 8, 8, 0)}, rsAt("n", 3, 5, 0, 0),
			map[string]int32{}, true},
		{"one new pod available frees one", []*model.ReplicaSet{rsAt("a", 1, 8, 8, 0)}, rsAt("n", 3, 5, 1, 0),
			map[string]int32{"a": 7}, true},
		{"unhealthy replicas go first", []*model.ReplicaSet{rsAt("b", 2, 4, 4, 0), rsAt("a", 1, 6, 3, 0)},
			rsAt("n", 3, 3, 3, 0), map[string]int32{"a": 1}, true},
		{"oldest first", []*model.ReplicaSet{rsAt("b", 2, 5, 5, 0), rsAt("a", 1, 5, 5, 0)},
			rsAt("n", 3, 3, 3, 0), map[string]int32{"a": 0}, true},
		{"stale status above size gives up", []*model.ReplicaSet{rsAt("a", 1, 8, 10, 0)}, rsAt("n", 3, 5, 3, 0),
			map[string]int32{}, false},
	}
	runPlanOld(t, d, cases)
}

// TestPlanScaleProportional follows the proportional scaling example of
// the Kubernetes documentation: 10 replicas, maxSurge 3, mid-rollout with
// 8 old and 5 new pods, scaled to 15: 3 more old and 2 more new.
func TestPlanScaleProportional(t *testing.T) {
	cases := []struct {
		name     string
		replicas int32
		want     map[string]int32
	}{
		{"scale up 10 -> 15", 15, map[string]int32{"old": 11, "new": 7}},
		{"scale down 10 -> 5", 5, map[string]int32{"old": 5, "new": 3}},
		{"scale to 0", 0, map[string]int32{"old": 0, "new": 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := rolling(tc.replicas, model.FromInt(3), model.FromInt(2))
			old, cur := rsAt("old", 1, 8, 8, 13), rsAt("new", 2, 5, 0, 13)
			got := map[string]int32{}
			for _, op := range planScale(d, cur, []*model.ReplicaSet{old}) {
				got[op.rs.Name] = op.replicas
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestPlanScaleSingleActive(t *testing.T) {
	d := rolling(6, model.FromInt(1), model.FromInt(1))
	old, cur := rsAt("old", 1, 0, 0, 0), rsAt("new", 2, 4, 4, 0)
	ops := planScale(d, cur, []*model.ReplicaSet{old})
	require.Len(t, ops, 1)
	require.Equal(t, "new", ops[0].rs.Name)
	require.Equal(t, int32(6), ops[0].replicas)
}

func TestRevisionHistoryAnnotation(t *testing.T) {
	d := newDeployment("web", 1, "x")
	rs := rsAt("a", 1, 1, 1, 0)
	rs.Annotations = map[string]string{RevisionAnnotation: "1"}
	require.True(t, setNewReplicaSetAnnotations(d, rs, 3, true))
	require.Equal(t, "3", rs.Annotations[RevisionAnnotation])
	require.Equal(t, "1", rs.Annotations[RevisionHistoryAnnotation])
	require.True(t, setNewReplicaSetAnnotations(d, rs, 5, true))
	require.Equal(t, "1,3", rs.Annotations[RevisionHistoryAnnotation])
	require.False(t, setNewReplicaSetAnnotations(d, rs, 4, true), "a revision never goes down")
}

// planOldCase is one case of planOldReplicaSets: the old ReplicaSets and
// the new one, and the sizes and verdict it must plan.
type planOldCase struct {
	name   string
	old    []*model.ReplicaSet
	newRS  *model.ReplicaSet
	want   map[string]int32
	wantOK bool
}

// runPlanOld runs each case's planOldReplicaSets for d.
func runPlanOld(t *testing.T, d *model.Deployment, cases []planOldCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			all := append(append([]*model.ReplicaSet{}, tc.old...), tc.newRS)
			ops, ok := planOldReplicaSets(d, all, tc.old, tc.newRS, false)
			got := map[string]int32{}
			for _, op := range ops {
				got[op.rs.Name] = op.replicas
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantOK, ok)
		})
	}
}
