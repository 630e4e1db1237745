package replicaset

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// ownedRS is newRS with a controllerRef to a Deployment of UID owner.
func ownedRS(name string, replicas int32, owner model.UID) *model.ReplicaSet {
	rs := newRS(name, replicas, 0)
	dep := &model.Deployment{ObjectMeta: model.ObjectMeta{Name: "dep-" + string(owner), Namespace: ns, UID: owner}}
	rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(dep, model.KindDeployment)}
	return rs
}

// The pods that rank scale-down victims by node are those of every
// ReplicaSet with the same controller, this one's included, and none of a
// ReplicaSet of another controller or of none
// (kubernetes/kubernetes pkg/controller/replicaset/replica_set.go,
// getIndirectlyRelatedPods over getReplicaSetsWithSameController).
func TestRelatedPodsAreThoseOfTheSameController(t *testing.T) {
	e := newEnv(t, 14, envOpts{})
	e.mustCreate(ownedRS("old", 2, "d1"))
	e.mustCreate(ownedRS("new", 1, "d1"))
	e.mustCreate(ownedRS("other", 2, "d2"))
	e.mustCreate(newRS("lone", 1, 0))
	e.Run(5 * time.Second)

	names := func(pods []*model.Pod) []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Name)
		}
		sort.Strings(out)
		return out
	}
	want := names(append(e.pods("old"), e.pods("new")...))
	require.Len(t, want, 3)
	obj, ok := e.ctx.ReplicaSets.Lister().Get(ns + "/new")
	require.True(t, ok)
	require.Equal(t, want, names(e.ctl.relatedPods(obj.(*model.ReplicaSet))))

	lone, ok := e.ctx.ReplicaSets.Lister().Get(ns + "/lone")
	require.True(t, ok)
	require.Empty(t, e.ctl.relatedPods(lone.(*model.ReplicaSet)), "no controller: no related pods")
}

// The pods' generateName is "<name>-" while that is a valid DNS-1123
// subdomain prefix (at most 253 characters), else the name itself
// (kubernetes/kubernetes pkg/controller/controller_utils.go, getPodsPrefix:
// NameIsDNSSubdomain(prefix, true)).
func TestPodGenerateNamePrefix(t *testing.T) {
	cases := []struct {
		length int  // of the ReplicaSet's name
		dash   bool // whether the prefix is "<name>-"
	}{
		{3, true},
		{252, true},  // "<name>-" is 253 characters: valid
		{253, false}, // 254: too long, the name itself
	}
	for _, tc := range cases {
		name := strings.Repeat("r", tc.length)
		want := name
		if tc.dash {
			want += "-"
		}
		require.Equal(t, want, podFromTemplate(newRS(name, 1, 0)).GenerateName, "a ReplicaSet name of %d characters", tc.length)
	}
}
