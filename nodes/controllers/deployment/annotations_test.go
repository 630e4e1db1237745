package deployment

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewReplicaSetAnnotationsFromDeployment follows SetNewReplicaSetAnnotations
// and copyDeploymentAnnotationsToReplicaSet (kubernetes/kubernetes
// pkg/controller/deployment/util/deployment_util.go): the Deployment's own
// annotations are copied to its new ReplicaSet, but never the controller's
// (revision) or kubectl's last-applied configuration; an annotation that is
// already there with the same value is no change; a malformed revision is
// left alone.
func TestNewReplicaSetAnnotationsFromDeployment(t *testing.T) {
	d := newDeployment("web", 2, "web:1")
	d.Annotations = map[string]string{"team": "a", RevisionAnnotation: "9",
		"kubectl.kubernetes.io/last-applied-configuration": "{}"}
	rs := rsAt("web-1", 1, 2, 2, 0)
	rs.Annotations = map[string]string{RevisionAnnotation: "2", "team": "a"}
	require.False(t, setNewReplicaSetAnnotations(d, rs, 2, true), "up to date")
	require.Equal(t, map[string]string{RevisionAnnotation: "2", "team": "a"}, rs.Annotations)

	d.Annotations["team"] = "b"
	require.True(t, setNewReplicaSetAnnotations(d, rs, 2, true), "a changed Deployment annotation")
	require.Equal(t, map[string]string{RevisionAnnotation: "2", "team": "b"}, rs.Annotations)

	rs.Annotations = map[string]string{RevisionAnnotation: "x"}
	setNewReplicaSetAnnotations(d, rs, 3, true)
	require.Equal(t, "x", rs.Annotations[RevisionAnnotation], "a malformed revision is left alone")
	require.NotContains(t, rs.Annotations, RevisionHistoryAnnotation)
}

// TestRevisionHistoryLimit follows SetNewReplicaSetAnnotations' revision
// history: a rolled-back-to ReplicaSet appends its former revision, and the
// oldest entries are dropped while the annotation would exceed
// maxRevHistoryLengthInChars (2000); exactly 2000 fits, and a former
// revision that cannot fit is not recorded.
func TestRevisionHistoryLimit(t *testing.T) {
	entries := func(first string, n int) []string {
		out := []string{}
		if first != "" {
			out = append(out, first)
		}
		for i := range n {
			out = append(out, strconv.Itoa(1000+i))
		}
		return out
	}
	d := newDeployment("web", 2, "web:1")
	for _, tc := range []struct {
		name    string
		history []string
		former  string
		want    []string
	}{
		// 399*4 + 398 commas + 1 + 5 = 2000: everything fits.
		{"exactly 2000 characters", entries("", 399), "13990", append(entries("", 399), "13990")},
		// 1 + 399*5 + 1 + 4 = 2001: the oldest entry ("1") goes, and only it.
		{"2001 characters: the oldest goes", entries("1", 399), "1399", append(entries("", 399), "1399")},
		// A zero-padded former revision of 2001 characters never fits:
		// every entry is dropped, then nothing is appended.
		{"a former revision too long to record", []string{"1"}, strings.Repeat("0", 1996) + "12345", []string{"1"}},
	} {
		rs := rsAt("web-1", 1, 2, 2, 0)
		rs.Annotations = map[string]string{RevisionAnnotation: tc.former, RevisionHistoryAnnotation: strings.Join(tc.history, ",")}
		require.NotPanics(t, func() { setNewReplicaSetAnnotations(d, rs, 20000, true) }, tc.name)
		require.Equal(t, "20000", rs.Annotations[RevisionAnnotation], tc.name)
		got := rs.Annotations[RevisionHistoryAnnotation]
		require.LessOrEqual(t, len(got), maxRevHistoryLengthInChars, tc.name)
		require.Equal(t, strings.Join(tc.want, ","), got, tc.name)
	}
}

// TestReplicasAnnotationsNeedUpdate follows ReplicasAnnotationsNeedUpdate
// (deploymentutil), which makes scaleReplicaSet write a ReplicaSet whose
// size is unchanged: either annotation out of date needs an update, both
// current need none.
func TestReplicasAnnotationsNeedUpdate(t *testing.T) {
	rs := rsAt("web-1", 1, 2, 2, 0)
	setReplicasAnnotations(rs, 10, 13)
	require.False(t, replicasAnnotationsNeedUpdate(rs, 10, 13), "current")
	require.True(t, replicasAnnotationsNeedUpdate(rs, 11, 13), "desired replicas changed")
	require.True(t, replicasAnnotationsNeedUpdate(rs, 10, 12), "max replicas changed")
	require.True(t, replicasAnnotationsNeedUpdate(rsAt("web-2", 1, 2, 2, 0), 10, 13), "none yet")
}
