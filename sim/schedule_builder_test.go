package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// builtExample is the text form's documented example (sim/schedule.go),
// written with the builder.
func builtExample() *sim.FaultBuilder {
	return sim.NewScheduleBuilder().
		Crash(10*time.Second, "etcd-1").For(5*time.Second).
		Partition(20*time.Second, []string{"etcd-1", "etcd-2"}, []string{"etcd-3", "etcd-4", "etcd-5"}).For(30*time.Second).
		OneWay(25*time.Second, []string{"etcd-1"}, []string{"etcd-3"}).For(2*time.Second).
		RestartProcess(40*time.Second, "kubelet", "node-3").
		ClockDrift(50*time.Second, 1.05, "etcd-2").For(60*time.Second).
		ClockJump(55*time.Second, -30*time.Second, "node-1").
		Flaky(60*time.Second, "*").Loss(0.2).Dup(0.05).For(10*time.Second).
		SlowDisk(70*time.Second, 200*time.Millisecond, "etcd-3").For(20 * time.Second).
		Heal(90 * time.Second)
}

const exampleText = `# kubesim fault schedule
10s crash etcd-1 for 5s
20s partition etcd-1,etcd-2|etcd-3,etcd-4,etcd-5 for 30s
25s oneway etcd-1>etcd-3 for 2s
40s restart-process node-3 process=kubelet
50s clock-drift etcd-2 for 1m0s rate=1.05
55s clock-jump node-1 by=-30s
1m0s flaky * for 10s loss=0.2 dup=0.05
1m10s slow-disk etcd-3 for 20s fsync=200ms
1m30s heal
`

// TestScheduleBuilderPrintsTheTextForm: what the builder builds prints as
// the text form, and parses back to what was built (build, print, parse,
// equal), for every kind.
func TestScheduleBuilderPrintsTheTextForm(t *testing.T) {
	b := builtExample().
		Torn(100*time.Second, "etcd-2").For(3*time.Second).
		Wipe(110*time.Second, "etcd-3", "etcd-4").
		Restart(120*time.Second, "etcd-3", "etcd-4").
		Pause(130*time.Second, "etcd-leader").For(4*time.Second).
		Isolate(140*time.Second, "etcd-5").For(time.Second).
		Flaky(150*time.Second, "node-1", "node-2").Reorder(0.1).Delay(10 * time.Millisecond)
	built, err := b.Schedule()
	require.NoError(t, err)
	require.Len(t, built, 15)
	kinds := map[sim.FaultKind]bool{}
	for _, f := range built {
		kinds[f.Kind] = true
	}
	require.Len(t, kinds, len(sim.FaultKinds), "every kind is built")

	text := built.String()
	require.Equal(t, exampleText+`1m40s torn etcd-2 for 3s
1m50s wipe etcd-3,etcd-4
2m0s restart etcd-3,etcd-4
2m10s pause etcd-leader for 4s
2m20s isolate etcd-5 for 1s
2m30s flaky node-1,node-2 reorder=0.1 delay=10ms
`, text)
	parsed, err := sim.ParseSchedule("built", text)
	require.NoError(t, err)
	for i := range parsed {
		parsed[i].Pos = "" // the text form does not carry it
	}
	require.Equal(t, built, parsed)
}

// TestScheduleBuilderMatchesTheDocumentedText: the builder's schedule is
// the one the documentation's example file parses to.
func TestScheduleBuilderMatchesTheDocumentedText(t *testing.T) {
	parsed, err := sim.ParseSchedule("example", exampleText)
	require.NoError(t, err)
	for i := range parsed {
		parsed[i].Pos = ""
	}
	require.Equal(t, parsed, builtExample().MustSchedule())
}

// TestScheduleBuilderRefuses: a fault the text form would refuse is
// refused by Schedule, named by its number, kind and time, and
// MustSchedule panics with it.
func TestScheduleBuilderRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    *sim.FaultBuilder
		want string
	}{
		{"instant with for", sim.NewScheduleBuilder().Crash(time.Second, "a").RestartProcess(2*time.Second, "kubelet", "n").For(time.Second),
			"fault 2: restart-process at 2s: restart-process acts at once"},
		{"no targets", sim.NewScheduleBuilder().Crash(time.Second), "fault 1: crash at 1s: crash needs one comma-separated target list"},
		{"one partition group", sim.NewScheduleBuilder().Partition(time.Second, []string{"a"}), "partition needs two or more groups"},
		{"both sides", sim.NewScheduleBuilder().OneWay(time.Second, []string{"a"}, []string{"a"}), "puts a on both sides"},
		{"rate out of range", sim.NewScheduleBuilder().ClockDrift(time.Second, 1000, "a"), "rate 1000 outside"},
		{"loss on a crash", sim.NewScheduleBuilder().Crash(time.Second, "a").Loss(0.5), "loss belongs to flaky only"},
		{"probability", sim.NewScheduleBuilder().Flaky(time.Second, "a").Dup(2), "probability 2 outside [0,1]"},
		{"bad name", sim.NewScheduleBuilder().Pause(time.Second, "a b"), `invalid target name "a b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.Schedule()
			require.ErrorContains(t, err, tc.want)
			require.Panics(t, func() { tc.b.MustSchedule() })
		})
	}
}

// TestScheduleBuilderCopies: the builder keeps its own copy of the target
// lists, so that changing a slice after the call changes nothing built.
func TestScheduleBuilderCopies(t *testing.T) {
	hosts := []string{"etcd-1"}
	b := sim.NewScheduleBuilder()
	b.Crash(time.Second, hosts...)
	b.Partition(2*time.Second, hosts, []string{"etcd-2"})
	hosts[0] = "changed"
	s := b.MustSchedule()
	require.Equal(t, "etcd-1", s[0].Targets[0][0])
	require.Equal(t, "etcd-1", s[1].Targets[0][0])
}
