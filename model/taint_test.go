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
