package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestToleratesTaint(t *testing.T) {
	taint := Taint{Key: "dedicated", Value: "db", Effect: TaintEffectNoSchedule}
	cases := []struct {
		name string
		tol  Toleration
		want bool
	}{
		{"equal match", Toleration{Key: "dedicated", Operator: TolerationOpEqual, Value: "db", Effect: TaintEffectNoSchedule}, true},
		{"empty operator means Equal", Toleration{Key: "dedicated", Value: "db"}, true},
		{"equal wrong value", Toleration{Key: "dedicated", Operator: TolerationOpEqual, Value: "web"}, false},
		{"exists any value", Toleration{Key: "dedicated", Operator: TolerationOpExists}, true},
		{"empty effect matches all effects", Toleration{Key: "dedicated", Operator: TolerationOpExists}, true},
		{"wrong effect", Toleration{Key: "dedicated", Operator: TolerationOpExists, Effect: TaintEffectNoExecute}, false},
		{"wrong key", Toleration{Key: "other", Operator: TolerationOpExists}, false},
		{"empty key exists tolerates everything", Toleration{Operator: TolerationOpExists}, true},
		{"unknown operator", Toleration{Key: "dedicated", Operator: "Gt", Value: "db"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.tol.ToleratesTaint(&taint))
		})
	}
}

func TestFindMatchingUntoleratedTaint(t *testing.T) {
	taints := []Taint{
		{Key: "soft", Effect: TaintEffectPreferNoSchedule},
		{Key: TaintNodeUnreachable, Effect: TaintEffectNoExecute},
		{Key: "dedicated", Value: "db", Effect: TaintEffectNoSchedule},
	}
	cases := []struct {
		name   string
		tols   []Toleration
		filter func(*Taint) bool
		want   string
		found  bool
	}{
		{"no tolerations, no filter: first taint", nil, nil, "soft", true},
		{"scheduling filter skips PreferNoSchedule", nil, DoNotScheduleTaintsFilter, TaintNodeUnreachable, true},
		{"default tolerations leave the dedicated taint", []Toleration{
			{Key: TaintNodeUnreachable, Operator: TolerationOpExists, Effect: TaintEffectNoExecute, TolerationSeconds: Ptr[int64](300)},
		}, DoNotScheduleTaintsFilter, "dedicated", true},
		{"all tolerated", []Toleration{{Operator: TolerationOpExists}}, nil, "", false},
		{"NoExecute only", []Toleration{{Key: "dedicated", Operator: TolerationOpExists}},
			func(t *Taint) bool { return t.Effect == TaintEffectNoExecute }, TaintNodeUnreachable, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, found := FindMatchingUntoleratedTaint(taints, c.tols, c.filter)
			assert.Equal(t, c.found, found)
			assert.Equal(t, c.want, got.Key)
		})
	}
}

func TestTaintEvictionHelpers(t *testing.T) {
	taints := []Taint{{Key: TaintNodeNotReady, Effect: TaintEffectNoExecute}, {Key: TaintNodeUnreachable, Effect: TaintEffectNoExecute}}
	pod := validPod() // has the two default tolerations of 300 s
	ok, used := GetMatchingTolerations(taints, pod.Spec.Tolerations)
	assert.True(t, ok)
	assert.Len(t, used, 2)
	assert.Equal(t, 300*time.Second, GetMinTolerationTime(used))

	ok, _ = GetMatchingTolerations(taints, pod.Spec.Tolerations[:1])
	assert.False(t, ok, "the unreachable taint is not tolerated")
	ok, used = GetMatchingTolerations(nil, nil)
	assert.True(t, ok)
	assert.Empty(t, used)

	assert.Equal(t, time.Duration(0), GetMinTolerationTime(nil))
	assert.Equal(t, time.Duration(-1), GetMinTolerationTime([]Toleration{{Operator: TolerationOpExists}}))
	assert.Equal(t, time.Duration(0), GetMinTolerationTime([]Toleration{{TolerationSeconds: Ptr[int64](-3)}, {TolerationSeconds: Ptr[int64](9)}}))
	assert.Equal(t, 9*time.Second, GetMinTolerationTime([]Toleration{{}, {TolerationSeconds: Ptr[int64](30)}, {TolerationSeconds: Ptr[int64](9)}}))

	a := Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}
	assert.True(t, a.MatchTaint(&Taint{Key: "k", Value: "other", Effect: TaintEffectNoSchedule}))
	assert.False(t, a.MatchTaint(&Taint{Key: "k", Effect: TaintEffectNoExecute}))
	assert.Equal(t, "k=v:NoSchedule", a.String())
	assert.Equal(t, "k:NoExecute", (&Taint{Key: "k", Effect: TaintEffectNoExecute}).String())
}

// TestTaintsLikeUpstream: the facts of k8s.io/api core/v1 toleration_test.go
// (TestTolerationToleratesTaint) and taint_test.go (TestTaintToString,
// TestMatchTaint), as kubesim's own table.
func TestTaintsLikeUpstream(t *testing.T) {
	ns, ne := TaintEffectNoSchedule, TaintEffectNoExecute
	tolerates := []struct {
		name  string
		tol   Toleration
		taint Taint
		want  bool
	}{
		{"same key and effect, Exists, taint without value", Toleration{Key: "foo", Operator: TolerationOpExists, Effect: ns}, Taint{Key: "foo", Effect: ns}, true},
		{"same key and effect, Exists, taint with value", Toleration{Key: "foo", Operator: TolerationOpExists, Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"empty key and Exists tolerates any key", Toleration{Operator: TolerationOpExists, Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"Equal, same value", Toleration{Key: "foo", Operator: TolerationOpEqual, Value: "bar", Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"Equal, different value", Toleration{Key: "foo", Operator: TolerationOpEqual, Value: "value1", Effect: ns}, Taint{Key: "foo", Value: "value2", Effect: ns}, false},
		{"no operator means Equal", Toleration{Key: "foo", Value: "bar", Effect: ns}, Taint{Key: "foo", Value: "bar", Effect: ns}, true},
		{"different effect", Toleration{Key: "foo", Operator: TolerationOpExists, Effect: ne}, Taint{Key: "foo", Effect: ns}, false},
		{"empty effect tolerates any effect", Toleration{Key: "foo", Operator: TolerationOpExists}, Taint{Key: "foo", Effect: ns}, true},
		{"different key", Toleration{Key: "foo", Operator: TolerationOpExists, Effect: ns}, Taint{Key: "bar", Effect: ns}, false},
		// 1.34 has no numeric operators: an unknown operator never tolerates
		{"Gt is unknown in 1.34", Toleration{Key: "foo", Operator: "Gt", Value: "1", Effect: ns}, Taint{Key: "foo", Value: "2", Effect: ns}, false},
		{"Lt is unknown in 1.34", Toleration{Key: "foo", Operator: "Lt", Value: "3", Effect: ns}, Taint{Key: "foo", Value: "2", Effect: ns}, false},
	}
	for _, c := range tolerates {
		assert.Equal(t, c.want, c.tol.ToleratesTaint(&c.taint), c.name)
	}
	for _, c := range []struct {
		taint Taint
		want  string
	}{
		{Taint{Key: "foo", Value: "bar", Effect: ns}, "foo=bar:NoSchedule"},
		{Taint{Key: "foo", Effect: ns}, "foo:NoSchedule"},
		{Taint{Key: "foo"}, "foo"},
		{Taint{Key: "foo", Value: "bar"}, "foo=bar:"},
	} {
		assert.Equal(t, c.want, c.taint.String())
	}
	a := Taint{Key: "foo", Value: "bar", Effect: ns}
	assert.True(t, a.MatchTaint(&Taint{Key: "foo", Value: "other", Effect: ns}), "the value does not count")
	assert.False(t, a.MatchTaint(&Taint{Key: "foo", Value: "bar", Effect: ne}), "the effect does")
	assert.False(t, a.MatchTaint(&Taint{Key: "foo2", Value: "bar", Effect: ns}), "the key does")
	// core validation refuses the operators 1.34 does not know
	errs := ValidateTolerations([]Toleration{{Key: "foo", Operator: "Gt", Value: "1"}}, "tolerations")
	assert.NotEmpty(t, errs)
}
