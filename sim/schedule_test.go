package sim_test

import (
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
		n := rapid.IntRange(2, 4).Draw(t, "groups")
		for i := 0; i < n; i++ {
			f.Targets = append(f.Targets, genNames(t, "group"))
		}
	case sim.FaultOneWay:
		f.Targets = [][]string{genNames(t, "from"), genNames(t, "to")}
	default:
		f.Targets = [][]string{genNames(t, "targets")}
	}
	if f.Kind == sim.FaultFlaky {
		prob := rapid.OneOf(rapid.Float64Range(0, 1), rapid.SampledFrom([]float64{0, 0.1, 1}))
		f.Loss, f.Dup, f.Reorder = prob.Draw(t, "loss"), prob.Draw(t, "dup"), prob.Draw(t, "reorder")
		f.Delay = genDur(t, "delay")
	}
	return f
}

// TestScheduleRoundTrip: every schedule prints to its text form and parses
// back to exactly itself.
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
`
	s, err := sim.ParseSchedule("example", text)
	require.NoError(t, err)
	require.Len(t, s, 5)
	assert.Equal(t, [][]string{{"etcd-1", "etcd-2"}, {"etcd-3", "etcd-4", "etcd-5"}}, s[1].Targets)
	assert.Equal(t, 0.2, s[3].Loss)
	assert.Equal(t, 5*time.Millisecond, s[3].Delay)
	assert.Equal(t, sim.FaultHeal, s[4].Kind)
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
		{"1s flaky a loss=2", `sched.txt:1: field "params": probability 2 outside [0,1]`},
		{"1s flaky a loss=x", `sched.txt:1: field "loss": invalid probability "x"`},
		{"1s flaky a colour=red", `sched.txt:1: field "colour": unknown parameter`},
		{"1s crash a loss=0.1", `sched.txt:1: field "params": loss, dup, reorder and delay belong to flaky only`},
		{"1s crash a b", `sched.txt:1: field "targets": unexpected "b"`},
		{"1s heal a", `sched.txt:1: field "targets": unexpected "a"`},
		{"1s", `sched.txt:1: field "kind"`},
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

	bad, err := sim.ParseSchedule("t", "1s crash nobody\n")
	require.NoError(t, err)
	assert.ErrorContains(t, w.CheckTargets(bad), `unknown fault target "nobody"`)
}
