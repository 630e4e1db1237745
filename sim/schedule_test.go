package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/sim"
)

func genNames(t *rapid.T, label string) []string {
	return rapid.SliceOfN(rapid.StringMatching(`[a-z][a-z0-9-]{0,8}`), 1, 4).Draw(t, label)
}

func genDur(t *rapid.T, label string) time.Duration {
	// Mix round values with odd nanosecond counts: both must print exactly.
	return rapid.OneOf(
		rapid.Map(rapid.IntRange(0, 600), func(s int) time.Duration { return time.Duration(s) * time.Second }),
		rapid.Map(rapid.Int64Range(0, int64(time.Hour)), func(n int64) time.Duration { return time.Duration(n) }),
	).Draw(t, label)
}

// genLatency draws an fsync or link delay within the 10 s a schedule
// allows, round and odd.
func genLatency(t *rapid.T, label string) time.Duration {
	return rapid.OneOf(
		rapid.Map(rapid.IntRange(0, 10), func(s int) time.Duration { return time.Duration(s) * time.Second }),
		rapid.Map(rapid.Int64Range(0, int64(10*time.Second)), func(n int64) time.Duration { return time.Duration(n) }),
	).Draw(t, label)
}

// suffixed makes the names of group i unlike any other group's.
func suffixed(names []string, i int) []string {
	out := make([]string, len(names))
	for j, n := range names {
		out[j] = fmt.Sprintf("%s.%d", n, i)
	}
	return out
}

func genFault(t *rapid.T) sim.Fault {
	f := sim.Fault{
		At:   genDur(t, "at"),
		Kind: rapid.SampledFrom(sim.FaultKinds).Draw(t, "kind"),
		For:  genDur(t, "for"),
	}
	switch f.Kind {
	case sim.FaultHeal:
		f.For = genDur(t, "for")
	case sim.FaultPartition:
		// Disjoint groups: a host may not be on both sides.
		n := rapid.IntRange(2, 4).Draw(t, "groups")
		for i := 0; i < n; i++ {
			f.Targets = append(f.Targets, suffixed(genNames(t, "group"), i))
		}
	case sim.FaultOneWay:
		f.Targets = [][]string{suffixed(genNames(t, "from"), 0), suffixed(genNames(t, "to"), 1)}
	case sim.FaultRestartProcess:
		f.Targets = [][]string{genNames(t, "targets")}
		f.For = 0
		f.Process = rapid.StringMatching(`[a-z][a-z0-9-]{0,8}`).Draw(t, "process")
	case sim.FaultClockDrift:
		f.Targets = [][]string{genNames(t, "targets")}
		f.Rate = rapid.OneOf(rapid.Float64Range(0.01, 10), rapid.SampledFrom([]float64{0.95, 1, 1.05})).Draw(t, "rate")
	case sim.FaultClockJump:
		f.Targets = [][]string{genNames(t, "targets")}
		f.For = 0
		f.By = genDur(t, "by") + 1
		if rapid.Bool().Draw(t, "back") {
			f.By = -f.By
		}
	case sim.FaultSlowDisk:
		f.Targets = [][]string{genNames(t, "targets")}
		f.Fsync = max(genLatency(t, "fsync"), 1)
	default:
		f.Targets = [][]string{genNames(t, "targets")}
	}
	if f.Kind == sim.FaultFlaky {
		prob := rapid.OneOf(rapid.Float64Range(0, 1), rapid.SampledFrom([]float64{0, 0.1, 1}))
		f.Loss, f.Dup, f.Reorder = prob.Draw(t, "loss"), prob.Draw(t, "dup"), prob.Draw(t, "reorder")
		f.Delay = genLatency(t, "delay")
	}
	if rapid.Bool().Draw(t, "triggered") {
		f.On = genTrigger(t, f.At)
	}
	return f
}

// genTrigger draws a trigger armed at at: an event kind (a glob at times),
// hosts or none, fields with values that hold '=', ':' and '*', and each
// of until, within and times or not.
func genTrigger(t *rapid.T, at time.Duration) *sim.Trigger {
	tr := &sim.Trigger{Event: rapid.StringMatching(`[a-z][a-z0-9-]{0,6}(\.[a-z*][a-z0-9-]{0,6})?`).Draw(t, "event")}
	if rapid.Bool().Draw(t, "hosts") {
		tr.Hosts = genNames(t, "hosts")
	}
	keys := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z][a-z0-9-]{0,6}`), 0, 3, rapid.ID[string]).Draw(t, "keys")
	for _, k := range keys {
		tr.Match = append(tr.Match, sim.FieldMatch{Key: k, Value: rapid.StringMatching(`[a-z0-9*/][a-z0-9=:*/.-]{0,8}[a-z0-9*]`).Draw(t, "value")})
	}
	tr.Edge = rapid.Bool().Draw(t, "edge")
	if rapid.Bool().Draw(t, "until") {
		tr.Until = at + genDur(t, "until") + 1
	}
	if rapid.Bool().Draw(t, "within") {
		tr.Within = max(genDur(t, "within"), 1)
	}
	tr.Times = rapid.SampledFrom([]int{0, 1, 2, 1000}).Draw(t, "times")
	return tr
}

// TestScheduleRoundTrip: every schedule prints to its text form and parses
// back to exactly itself, each fault knowing the line it came from.
func TestScheduleRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := sim.Schedule(rapid.SliceOfN(rapid.Custom(genFault), 0, 12).Draw(t, "schedule"))
		for _, f := range s {
			require.NoError(t, f.Validate())
		}
		text := s.String()
		back, err := sim.ParseSchedule("gen", text)
		require.NoError(t, err, "text:\n%s", text)
		if len(s) == 0 {
			require.Empty(t, back)
			return
		}
		for i := range back {
			require.Equal(t, fmt.Sprintf("gen:%d", i+2), back[i].Pos, "after the header line")
			back[i].Pos = ""
		}
		require.Equal(t, s, back, "text:\n%s", text)
		require.Equal(t, text, back.String())
	})
}

func TestParseScheduleExample(t *testing.T) {
	text := `# kubesim fault schedule
10s crash etcd-1 for 5s
20s partition etcd-1,etcd-2|etcd-3,etcd-4,etcd-5 for 30s

25s oneway etcd-1>etcd-3 for 2s
60s flaky * for 10s loss=0.2 dup=0.05 delay=5ms
90s heal
100s restart-process node-3 process=kubelet
110s clock-drift etcd-1,etcd-2 for 30s rate=0.95
120s clock-jump node-1 by=-2m
130s slow-disk etcd-3 for 10s fsync=250ms
`
	s, err := sim.ParseSchedule("example", text)
	require.NoError(t, err)
	require.Len(t, s, 9)
	assert.Equal(t, [][]string{{"etcd-1", "etcd-2"}, {"etcd-3", "etcd-4", "etcd-5"}}, s[1].Targets)
	assert.Equal(t, 0.2, s[3].Loss)
	assert.Equal(t, 5*time.Millisecond, s[3].Delay)
	assert.Equal(t, sim.FaultHeal, s[4].Kind)
	assert.Equal(t, sim.Fault{At: 100 * time.Second, Kind: sim.FaultRestartProcess, Targets: [][]string{{"node-3"}},
		Process: "kubelet", Pos: "example:8"}, s[5])
	assert.Equal(t, "example:5", s[2].Pos, "blank and comment lines count")
	assert.Equal(t, 0.95, s[6].Rate)
	assert.Equal(t, 30*time.Second, s[6].For)
	assert.Equal(t, -2*time.Minute, s[7].By)
	assert.Equal(t, 250*time.Millisecond, s[8].Fsync)
	assert.Equal(t, "2m0s clock-jump node-1 by=-2m0s", s[7].String())
}

// TestParseScheduleErrors: a malformed line gets an error naming the
// source, the line and the field.
func TestParseScheduleErrors(t *testing.T) {
	cases := []struct {
		text, want string
	}{
		{"10x crash a", `sched.txt:1: field "at": invalid duration "10x"`},
		{"\n\n1s explode a", `sched.txt:3: field "kind": unknown fault "explode"`},
		{"1s crash", `sched.txt:1: field "targets": crash needs one comma-separated target list`},
		{"1s partition a,b", `sched.txt:1: field "targets": partition needs two or more groups`},
		{"1s oneway a", `sched.txt:1: field "targets": oneway needs 2 groups`},
		{"1s crash a for", `sched.txt:1: field "for": missing duration`},
		{"1s crash a for soon", `sched.txt:1: field "for": invalid duration "soon"`},
		{"1s flaky a loss=2", `sched.txt:1: field "loss": probability 2 outside [0,1]`},
		{"1s flaky a loss=x", `sched.txt:1: field "loss": invalid probability "x"`},
		{"1s flaky a colour=red", `sched.txt:1: field "colour": unknown parameter "colour" (want one of loss, dup, reorder, delay, process`},
		{"1s crash a loss=0.1", `sched.txt:1: field "loss": loss belongs to flaky only`},
		{"1s partition a,b|c,a", `sched.txt:1: field "targets": partition puts a on both sides: a host cannot be cut off from itself; name it on one side only`},
		{"1s oneway a>b,a for 1s", `sched.txt:1: field "targets": oneway puts a on both sides`},
		{"1s restart-process a", `sched.txt:1: field "process": restart-process needs process=<name>`},
		{"1s restart-process a process=kubelet for 2s", `sched.txt:1: field "for": restart-process acts at once: drop "for 2s"`},
		{"1s crash a process=kubelet", `sched.txt:1: field "process": process belongs to restart-process only`},
		{"1s restart-process a process=a|b", `sched.txt:1: field "process": invalid process "a|b"`},
		{"1s clock-drift a", `sched.txt:1: field "rate": clock-drift needs rate=<rate>`},
		{"1s clock-drift a rate=-1", `sched.txt:1: field "rate": rate -1 outside [0.01, 100] (1.05 runs 5% fast, 0.95 5% slow)`},
		{"1s clock-drift a rate=fast", `sched.txt:1: field "rate": invalid rate "fast"`},
		{"1s clock-drift a rate=0", `sched.txt:1: field "rate": rate 0 outside [0.01, 100]`},
		{"1s clock-drift a rate=101", `sched.txt:1: field "rate": rate 101 outside [0.01, 100]`},
		{"1s clock-drift a rate=NaN", `sched.txt:1: field "rate": rate NaN outside [0.01, 100]`},
		{"1s clock-drift a rate=+Inf", `sched.txt:1: field "rate": rate +Inf outside [0.01, 100]`},
		{"1s clock-jump a", `sched.txt:1: field "by": clock-jump needs by=<±duration>`},
		{"1s clock-jump a by=soon", `sched.txt:1: field "by": invalid duration "soon" (want e.g. 2s or -500ms)`},
		{"1s clock-jump a by=1s for 5s", `sched.txt:1: field "for": clock-jump acts at once: drop "for 5s"`},
		{"1s slow-disk a for 5s", `sched.txt:1: field "fsync": slow-disk needs fsync=<duration>`},
		{"1s slow-disk a fsync=-1s", `sched.txt:1: field "fsync": negative duration "-1s"`},
		{"1s crash a rate=2", `sched.txt:1: field "rate": rate belongs to clock-drift only`},
		{"1s crash a b", `sched.txt:1: field "targets": unexpected "b"`},
		{"1s heal a", `sched.txt:1: field "targets": unexpected "a"`},
		{"1s", `sched.txt:1: field "kind"`},
		{"1s crash a for 0s", `sched.txt:1: field "for": "for 0s" lasts no time: leave "for" out`},
		{"1s crash a for 1s for 2s", `sched.txt:1: field "for": "for" is given twice`},
		{"1s flaky a loss=0.1 loss=0.2", `sched.txt:1: field "loss": loss is given twice`},
		{"1s flaky a loss=NaN", `sched.txt:1: field "loss": probability NaN outside [0,1]`},
		{"1s flaky a delay=11s", `sched.txt:1: field "delay": delay=11s is longer than 10s`},
		{"1s slow-disk a fsync=1000h", `sched.txt:1: field "fsync": fsync=1000h0m0s is longer than 10s`},
		{"1s clock-jump a by=-25h", `sched.txt:1: field "by": by=-25h0m0s steps the clock by more than 24h0m0s`},
		{"1s on raft.state role=leader crash a", `sched.txt:1: field "on": a trigger ends with a colon before its fault`},
		{"1s on: crash a", `sched.txt:1: field "on": missing event after "on"`},
		{"on", `sched.txt:1: field "on": a trigger ends with a colon`},
		{"1s on raft.state:", `sched.txt:1: field "kind": want "<at> <kind> [targets] [for <duration>]"`},
		{"1s on Raft.State: crash a", `sched.txt:1: field "on": invalid event kind "Raft.State"`},
		{"1s on raft.state role=leader bogus: crash a", `sched.txt:1: field "on": unexpected "bogus" (want <field>=<value>, edge, until, within or times)`},
		{"1s on raft.state within soon: crash a", `sched.txt:1: field "within": invalid duration "soon"`},
		{"1s on raft.state within 0s: crash a", `sched.txt:1: field "within": "within 0s" is no time: leave "within" out`},
		{"1s on raft.state within 2h: crash a", `sched.txt:1: field "within": within 2h0m0s is longer than 1h0m0s`},
		{"1s on raft.state within 1s within 2s: crash a", `sched.txt:1: field "within": "within" is given twice`},
		{"1s on raft.state edge role=leader edge: crash a", `sched.txt:1: field "edge": "edge" is given twice`},
		{"1s on raft.state times 0: crash a", `sched.txt:1: field "times": invalid count "0" (want a whole number from 1 to 1000)`},
		{"1s on raft.state times 1001: crash a", `sched.txt:1: field "times": times 1001 outside [1, 1000]`},
		{"1s on raft.state times: crash a", `sched.txt:1: field "times": missing value after "times"`},
		{"5s on raft.state until 5s: crash a", `sched.txt:1: field "until": until 5s is not after the trigger is armed (5s): it would never fire`},
		{"1s on raft.state role=leader role=follower: crash a", `sched.txt:1: field "match": field role is matched twice`},
		{"1s on raft.state role=: crash a", `sched.txt:1: field "match": invalid value "" for field role`},
		{"1s on raft.state =leader: crash a", `sched.txt:1: field "match": invalid field name ""`},
		{"1s on raft.state etcd|1: crash a", `sched.txt:1: field "on": invalid host name "etcd|1"`},
		{"1s on raft.state: crash a for soon", `sched.txt:1: field "for": invalid duration "soon"`},
		{"1s on raft.state: explode a", `sched.txt:1: field "kind": unknown fault "explode"`},
	}
	for _, c := range cases {
		_, err := sim.ParseSchedule("sched.txt", c.text)
		require.Error(t, err, c.text)
		assert.Contains(t, err.Error(), c.want, c.text)
	}
}

func TestScheduleAppliesAtItsTimes(t *testing.T) {
	w, a, _, _, _ := twoHosts(t)
	s, err := sim.ParseSchedule("t", "1s crash a for 2s\n")
	require.NoError(t, err)
	require.NoError(t, w.CheckTargets(s))
	w.Apply(s)
	w.Run(sim.Time(1500 * time.Millisecond))
	assert.False(t, a.Up())
	w.Run(sim.Time(3500 * time.Millisecond))
	assert.True(t, a.Up())
	assert.Equal(t, uint64(2), a.Incarnation())

}

// TestCheckTargetsNamesTheLine: a schedule the world cannot carry out is
// refused before it runs, with the file and line of the fault and what to
// do about it.
func TestCheckTargetsNamesTheLine(t *testing.T) {
	w, _, _, _, _ := twoHosts(t)
	cases := []struct{ text, want string }{
		{"# header\n\n1s crash nobody\n", `sched.txt:3: crash at 1s: unknown fault target "nobody": name a host (such as a), "*" for every host, or a group the scenario defines`},
		{"1s partition a|*\n", `sched.txt:1: partition at 1s: partition puts a on both sides: a host cannot be cut off from itself; name it on one side only`},
		{"1s crash a\n2s oneway *>b\n", `sched.txt:2: oneway at 2s: oneway puts b on both sides`},
		{"1s restart-process a process=kubelet\n", `sched.txt:1: restart-process at 1s: host a runs no process "kubelet" that restarts alone (it has none): name another process or host`},
		{"1s partition leader|a,b\n", `sched.txt:1: partition at 1s: partition puts leader on both sides whenever it names a host (leader is always one of both)`},
		{"1s oneway a,b>leader\n", `sched.txt:1: oneway at 1s: oneway puts leader on both sides whenever it names a host`},
	}
	// "leader" resolves when a fault fires, to nobody now, and always to a
	// or b; "both" names a and b.
	w.AddResolver(func(name string) ([]sim.HostID, bool) {
		switch name {
		case "leader":
			return nil, true
		case "both":
			ids, _ := w.Resolve("a")
			more, _ := w.Resolve("b")
			return append(ids, more...), true
		}
		return nil, false
	})
	w.DeclareWithin("leader", "both")
	w.AddResolver(func(name string) ([]sim.HostID, bool) {
		if name == "followers" { // every host but the leader, when the fault fires
			ids, _ := w.Resolve("both")
			return ids, true
		}
		return nil, false
	})
	w.DeclareWithin("followers", "both")
	for _, s := range []string{"1s partition leader|a\n", "1s oneway followers>leader\n", "1s partition leader|nobody-else\n"} {
		sched, err := sim.ParseSchedule("sched.txt", s)
		require.NoError(t, err)
		if strings.Contains(s, "nobody-else") {
			assert.ErrorContains(t, w.CheckTargets(sched), "unknown fault target", s)
			continue
		}
		assert.NoError(t, w.CheckTargets(sched), "leader may be apart from the other side when the fault fires: %s", s)
	}
	for _, c := range cases {
		s, err := sim.ParseSchedule("sched.txt", c.text)
		require.NoError(t, err, c.text)
		assert.ErrorContains(t, w.CheckTargets(s), c.want, c.text)
	}
	generated := sim.Schedule{{At: time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"a"}}}, {At: 2 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"x"}}}}
	assert.ErrorContains(t, w.CheckTargets(generated), `fault 2: crash at 2s: unknown fault target "x"`, "a generated fault is named by its number")
}
