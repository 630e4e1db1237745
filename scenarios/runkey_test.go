package scenarios_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// TestRunKeyCoversEverythingThatDefinesARun: changing any one thing that
// defines a run (scenario, members, seed, duration, profile, schedule,
// ablations, BUGGIFY) changes its key, and a result's key equals the key
// of the options that ran it.
func TestRunKeyCoversEverythingThatDefinesARun(t *testing.T) {
	p1, err := nemesis.ParseProfile("crash-restart:mttf=1m,mttr=20s")
	require.NoError(t, err)
	p2, err := nemesis.ParseProfile("crash-restart:mttf=2m,mttr=20s")
	require.NoError(t, err)
	crash := sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-1"}}, For: 5 * time.Second}}
	pause := sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultPause, Targets: [][]string{{"etcd-1"}}, For: 5 * time.Second}}
	base := scenarios.Options{Scenario: "etcd-profile", Members: 3, Seed: 1, Duration: time.Minute, Profile: &p1}
	cases := []struct {
		name   string
		change func(o *scenarios.Options)
	}{
		{"scenario", func(o *scenarios.Options) { o.Scenario = "etcd-chaos" }},
		{"members", func(o *scenarios.Options) { o.Members = 5 }},
		{"seed", func(o *scenarios.Options) { o.Seed = 2 }},
		{"duration", func(o *scenarios.Options) { o.Duration = 2 * time.Minute }},
		{"profile", func(o *scenarios.Options) { o.Profile = &p2 }},
		{"no profile", func(o *scenarios.Options) { o.Profile = nil }},
		{"schedule", func(o *scenarios.Options) { o.Profile, o.Schedule = nil, crash }},
		{"another schedule", func(o *scenarios.Options) { o.Profile, o.Schedule = nil, pause }},
		{"ablations", func(o *scenarios.Options) { o.Ablations = []string{"raft-ack-before-fsync"} }},
		{"buggify", func(o *scenarios.Options) { o.Buggify = true }},
	}
	seen := map[string]string{base.Key(): "base"}
	for _, c := range cases {
		o := base
		c.change(&o)
		k := o.Key()
		require.NotContains(t, seen, k, "%s gives the key of %s", c.name, seen[k])
		seen[k] = c.name
	}
	require.True(t, strings.HasSuffix(base.Key(), "|"+scenarios.Build()), "the key names the build")

	// The scenario's own length is the length of a run without one.
	own := base
	own.Duration = 0
	spec, err := scenarios.Lookup("etcd-profile")
	require.NoError(t, err)
	withOwn := base
	withOwn.Duration = spec.Duration
	require.Equal(t, withOwn.Key(), own.Key())

	// A result has the key of its options, through JSON too.
	for _, o := range []scenarios.Options{base, own, {Scenario: "etcd-leader-crash", Members: 3, Seed: 4, Duration: 30 * time.Second, Schedule: crash},
		{Scenario: "etcd-leader-crash", Members: 3, Seed: 4, Duration: 30 * time.Second, Buggify: true}} {
		res, err := scenarios.Run(o)
		require.NoError(t, err)
		require.Equal(t, o.Key(), res.Key())
		require.Equal(t, o.RunDuration(), res.Duration)
		require.Equal(t, scenarios.Build(), res.Build)
		require.Equal(t, scenarios.ScheduleHash(o.Schedule), res.ScheduleHash)
		line, err := json.Marshal(res)
		require.NoError(t, err)
		var back scenarios.Result
		require.NoError(t, json.Unmarshal(line, &back))
		require.Equal(t, o.Key(), back.Key())
	}
}

// TestOldResultKey: a result written before results recorded their
// duration and build still loads and has a key: its duration is the
// virtual time it ended at, and its build is empty, so it never matches a
// run of the current build.
func TestOldResultKey(t *testing.T) {
	old := `{"scenario":"etcd-profile","members":3,"seed":7,"virtual_seconds":300,"ok":true,` +
		`"profile":{"name":"crash-restart","params":{"mttf":"1m0s","mttr":"20s"}}}`
	var r scenarios.Result
	require.NoError(t, json.Unmarshal([]byte(old), &r))
	require.Equal(t, 5*time.Minute, r.RunDuration())
	require.Equal(t, "etcd-profile|3|7|5m0s|crash-restart:mttf=1m0s,mttr=20s|||", r.Key())
	p, err := nemesis.ParseProfile("crash-restart:mttf=1m0s,mttr=20s")
	require.NoError(t, err)
	now := scenarios.Options{Scenario: "etcd-profile", Members: 3, Seed: 7, Duration: 5 * time.Minute, Profile: &p}
	require.NotEqual(t, now.Key(), r.Key())
	require.Equal(t, now.Key(), r.Key()+scenarios.Build())
}

func TestScheduleHash(t *testing.T) {
	require.Empty(t, scenarios.ScheduleHash(nil))
	a := sim.Schedule{{At: time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-1"}}, For: time.Second}}
	b := sim.Schedule{{At: time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-2"}}, For: time.Second}}
	require.Len(t, scenarios.ScheduleHash(a), 16)
	require.NotEqual(t, scenarios.ScheduleHash(a), scenarios.ScheduleHash(b))
	require.NotEqual(t, scenarios.ScheduleHash(sim.Schedule{}), scenarios.ScheduleHash(nil), "an explicit empty schedule is a schedule")
	back, err := sim.ParseSchedule("a", a.String())
	require.NoError(t, err)
	require.Equal(t, scenarios.ScheduleHash(a), scenarios.ScheduleHash(back), "the hash is of the text form")
}
