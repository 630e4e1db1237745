package sweep

import (
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// TestGridOrder: At computes the runs in order of profile, member count,
// seed, as All yields them, and Index finds each run's position from its
// result.
func TestGridOrder(t *testing.T) {
	p1, _ := nemesis.ParseProfile("crash-restart:mttf=20s,mttr=5s")
	p2, _ := nemesis.ParseProfile("partitions")
	g := Grid{Scenario: "etcd-profile", Members: []int{5, 3}, Seeds: 3, SeedBase: 10, Profiles: []nemesis.Profile{p1, p2}, Duration: time.Minute}
	require.Equal(t, 12, g.Len())
	var got []string
	for i, o := range g.All() {
		require.Equal(t, g.At(i), o)
		got = append(got, o.Profile.Name+"/"+itoa(o.Members)+"/"+itoa(int(o.Seed)))
		r := scenarios.Result{Scenario: o.Scenario, Members: o.Members, Seed: o.Seed, Profile: o.Profile,
			Duration: o.Duration, Build: scenarios.Build()}
		j, ok := g.Index(&r)
		require.True(t, ok, "run %d", i)
		require.Equal(t, i, j)
	}
	require.Equal(t, []string{
		"crash-restart/5/10", "crash-restart/5/11", "crash-restart/5/12", "crash-restart/3/10", "crash-restart/3/11", "crash-restart/3/12",
		"partitions/5/10", "partitions/5/11", "partitions/5/12", "partitions/3/10", "partitions/3/11", "partitions/3/12",
	}, got)

	// Results of runs that are not the grid's have no position.
	in := scenarios.Result{Scenario: "etcd-profile", Members: 3, Seed: 11, Profile: &p2, Duration: time.Minute, Build: scenarios.Build()}
	_, ok := g.Index(&in)
	require.True(t, ok)
	for name, change := range map[string]func(r *scenarios.Result){
		"another duration": func(r *scenarios.Result) { r.Duration = 2 * time.Minute },
		"another build":    func(r *scenarios.Result) { r.Build = "v0.0.1" },
		"no build":         func(r *scenarios.Result) { r.Build = "" },
		"seed below":       func(r *scenarios.Result) { r.Seed = 9 },
		"seed above":       func(r *scenarios.Result) { r.Seed = 13 },
		"members":          func(r *scenarios.Result) { r.Members = 4 },
		"no profile":       func(r *scenarios.Result) { r.Profile = nil },
		"ablated":          func(r *scenarios.Result) { r.Ablations = []string{"raft-ack-before-fsync"} },
		"a schedule":       func(r *scenarios.Result) { r.ScheduleHash = "0123456789abcdef" },
		"scenario":         func(r *scenarios.Result) { r.Scenario = "etcd-chaos" },
	} {
		r := in
		change(&r)
		_, ok := g.Index(&r)
		require.False(t, ok, name)
	}

	// Without a profile, runs have the scenario's faults.
	own := Grid{Scenario: "etcd-leader-crash", Members: []int{3}, Seeds: 2, SeedBase: 1}
	require.Nil(t, own.At(1).Profile)
	require.Equal(t, uint64(2), own.At(1).Seed)
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestGridSizeWithoutOverflow: the size of a huge grid is computed
// exactly, and one whose size does not fit in 64 bits says so.
func TestGridSizeWithoutOverflow(t *testing.T) {
	cases := []struct {
		members, profiles, seeds int
		want                     uint64
		ok                       bool
	}{
		{5, 1, 2_000_000_000, 10_000_000_000, true},
		{7, 3, math.MaxInt64 / 21, 21 * (math.MaxInt64 / 21), true},
		{7, 3, math.MaxInt64, 0, false},
		{1, 1, -1, 0, false},
	}
	for _, c := range cases {
		g := Grid{Members: make([]int, c.members), Profiles: make([]nemesis.Profile, c.profiles), Seeds: c.seeds}
		n, ok := g.Size()
		require.Equal(t, c.ok, ok, "%+v", c)
		if ok {
			require.Equal(t, c.want, n)
		}
	}
}

// TestGridValidate: a grid that cannot be meant is refused before the
// first run, with an error that names the input and how to fix it.
func TestGridValidate(t *testing.T) {
	p, _ := nemesis.ParseProfile("crash-restart")
	ok := Grid{Scenario: "etcd-profile", Members: []int{3, 4, 5}, Seeds: 10, SeedBase: 1}
	require.NoError(t, ok.Validate())
	huge := ok
	huge.Members, huge.Seeds = []int{3, 4, 5, 6, 7}, 2_000_000_000
	require.NoError(t, huge.Validate(), "ten billion runs are allowed")
	lastSeeds := ok
	lastSeeds.SeedBase, lastSeeds.Seeds = math.MaxUint64-9, 10
	require.NoError(t, lastSeeds.Validate(), "the seeds may end at 2^64-1")

	cases := []struct {
		name   string
		change func(g *Grid)
		want   []string
	}{
		{"unknown scenario", func(g *Grid) { g.Scenario = "no-such" }, []string{`unknown scenario "no-such"`}},
		{"no members", func(g *Grid) { g.Members = nil }, []string{"--members", "at least one"}},
		{"members 0", func(g *Grid) { g.Members = []int{3, 0} }, []string{"--members 3,0", "outside 1..7"}},
		{"members 8", func(g *Grid) { g.Members = []int{8} }, []string{"--members 8", "outside 1..7"}},
		{"duplicate members", func(g *Grid) { g.Members = []int{3, 3} }, []string{"--members 3,3", "3 is listed twice", "list each count once"}},
		{"duplicate members apart", func(g *Grid) { g.Members = []int{3, 5, 3} }, []string{"--members 3,5,3", "listed twice"}},
		{"no seeds", func(g *Grid) { g.Seeds = 0 }, []string{"--seeds must be at least 1"}},
		{"negative seeds", func(g *Grid) { g.Seeds = -5 }, []string{"--seeds must be at least 1"}},
		{"seeds wrap", func(g *Grid) { g.SeedBase = math.MaxUint64 - 5 }, []string{"--seed-base 18446744073709551610 with --seeds 10 wraps past 2^64", "--seed-base at most 18446744073709551606"}},
		{"seed base max", func(g *Grid) { g.SeedBase, g.Seeds = math.MaxUint64, 2 }, []string{"wraps past 2^64", "at most 18446744073709551614"}},
		{"duplicate profile", func(g *Grid) { g.Profiles = []nemesis.Profile{p, p} }, []string{"--faults crash-restart:mttf=1m0s,mttr=20s is given twice"}},
		{"unknown ablation", func(g *Grid) { g.Ablations = []string{"nope"} }, []string{`unknown ablation "nope"`}},
		{"duplicate ablation", func(g *Grid) { g.Ablations = []string{"raft-ack-before-fsync", "raft-ack-before-fsync"} }, []string{"--ablate raft-ack-before-fsync is given twice"}},
		{"negative duration", func(g *Grid) { g.Duration = -time.Second }, []string{"--duration must be positive"}},
		{"too large", func(g *Grid) { g.Members, g.Seeds = []int{1, 2, 3, 4, 5, 6, 7}, 1<<40 }, []string{"the grid has 7696581394432 runs (1 profiles × 7 member counts × 1099511627776 seeds)", "use fewer --seeds"}},
		{"size overflows", func(g *Grid) { g.Members, g.Seeds = []int{1, 2, 3, 4, 5, 6, 7}, math.MaxInt64 }, []string{"more than 2^64 runs", "use fewer --seeds"}},
	}
	for _, c := range cases {
		g := ok
		c.change(&g)
		err := g.Validate()
		require.Error(t, err, c.name)
		for _, w := range c.want {
			require.Contains(t, err.Error(), w, c.name)
		}
		require.NotContains(t, err.Error(), "\n", c.name)
		_, err = Run(Config{Grid: g, Out: filepath.Join(t.TempDir(), "out")})
		require.Error(t, err, "Run refuses it too: %s", c.name)
	}
}

// TestSweepResumeWithAnotherDuration: a resume with another --duration is
// another set of runs: none of the finished ones is reused, and the file
// then holds both.
func TestSweepResumeWithAnotherDuration(t *testing.T) {
	dir := t.TempDir()
	g := Grid{Scenario: "etcd-leader-crash", Members: []int{3}, Seeds: 2, SeedBase: 1, Duration: 30 * time.Second}
	sum, err := Run(Config{Grid: g, Out: dir, Parallel: 2})
	require.NoError(t, err)
	require.Equal(t, 2, sum.Ran)

	g.Duration = 40 * time.Second
	sum, err = Run(Config{Grid: g, Out: dir, Parallel: 2})
	require.NoError(t, err)
	require.Equal(t, Summary{Total: 2, Ran: 2, Other: 2, ResultsPath: sum.ResultsPath}, sum, "the 30 s runs are not the 40 s runs")
	durations := map[time.Duration]int{}
	for _, l := range lines(t, sum.ResultsPath) {
		var r scenarios.Result
		require.NoError(t, json.Unmarshal([]byte(l), &r))
		durations[r.Duration]++
	}
	require.Equal(t, map[time.Duration]int{30 * time.Second: 2, 40 * time.Second: 2}, durations)

	// The scenario's own length is its own grid too: 0 is not 40 s.
	g.Duration = 0
	sum, err = Run(Config{Grid: g, Out: dir, Stop: func() bool { return true }})
	require.NoError(t, err)
	require.Zero(t, sum.Skipped)
	require.Equal(t, 4, sum.Other)

	// And the 40 s sweep run again is done.
	g.Duration = 40 * time.Second
	sum, err = Run(Config{Grid: g, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 2, sum.Skipped)
	require.Zero(t, sum.Ran)
}

// TestResumeOfAnOldResultsFile: results written before results recorded
// their duration and build load, and are run again under the current
// build rather than reused.
func TestResumeOfAnOldResultsFile(t *testing.T) {
	dir := t.TempDir()
	old := `{"scenario":"etcd-leader-crash","members":3,"seed":1,"virtual_seconds":30,"ok":true}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(old), 0o644))
	g := Grid{Scenario: "etcd-leader-crash", Members: []int{3}, Seeds: 1, SeedBase: 1, Duration: 30 * time.Second}
	sum, err := Run(Config{Grid: g, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 1, sum.Other)
	require.Equal(t, 1, sum.Ran)
}

// TestHugeGridStartsAtOnceWithFlatMemory: a grid of ten billion runs
// (--seeds 2000000000 --members 3,4,5,6,7) starts its first run at once:
// nothing is listed before it, so starting it allocates no more than
// starting a grid of ten runs, measured in the same process; its first
// result is the grid's first run.
func TestHugeGridStartsAtOnceWithFlatMemory(t *testing.T) {
	small := Grid{Scenario: "etcd-leader-crash", Members: []int{3, 5}, Seeds: 5, SeedBase: 1, Duration: 30 * time.Second}
	huge := small
	huge.Members, huge.Seeds = []int{3, 4, 5, 6, 7}, 2_000_000_000
	require.Equal(t, 10_000_000_000, huge.Len())

	// Starting and stopping before the first run: the bytes allocated.
	start := func(g Grid) uint64 {
		dir := t.TempDir()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		sum, err := Run(Config{Grid: g, Out: dir, Parallel: 1, Stop: func() bool { return true }})
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Equal(t, g.Len(), sum.Total)
		require.True(t, sum.Interrupted)
		return after.TotalAlloc - before.TotalAlloc
	}
	smallBytes, hugeBytes := start(small), start(huge)
	t.Logf("allocated to start: %d bytes for %d runs, %d bytes for %d runs", smallBytes, small.Len(), hugeBytes, huge.Len())
	require.Less(t, hugeBytes, smallBytes+256<<10, "starting a grid allocates the same however many runs it has")

	// The first run is run at once: one run, and it is the grid's first.
	dir := t.TempDir()
	started := 0
	sum, err := Run(Config{Grid: huge, Out: dir, Parallel: 1, Stop: func() bool { started++; return started > 1 }})
	require.NoError(t, err)
	require.Equal(t, 1, sum.Ran)
	got := lines(t, sum.ResultsPath)
	require.Len(t, got, 1)
	var r scenarios.Result
	require.NoError(t, json.Unmarshal([]byte(got[0]), &r))
	require.Equal(t, huge.At(0).Key(), r.Key())

	// A resume reads the finished run into its index and goes on from the
	// second.
	started = 0
	sum, err = Run(Config{Grid: huge, Out: dir, Parallel: 1, Stop: func() bool { started++; return started > 1 }})
	require.NoError(t, err)
	require.Equal(t, 1, sum.Skipped)
	got = lines(t, sum.ResultsPath)
	require.Len(t, got, 2)
	require.NoError(t, json.Unmarshal([]byte(got[1]), &r))
	require.Equal(t, huge.At(1).Key(), r.Key())
}

// BenchmarkSweepStart measures what starting a sweep allocates, up to the
// moment its first run would begin, for a grid of ten runs and one of ten
// billion: B/op must not depend on the seed count.
func BenchmarkSweepStart(b *testing.B) {
	for _, c := range []struct {
		name  string
		seeds int
	}{{"seeds=5", 5}, {"seeds=2e9", 2_000_000_000}} {
		b.Run(c.name, func(b *testing.B) {
			g := Grid{Scenario: "etcd-leader-crash", Members: []int{3, 4, 5, 6, 7}, Seeds: c.seeds, SeedBase: 1}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(Config{Grid: g, Out: b.TempDir(), Parallel: 1, Stop: func() bool { return true }}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestDoneSet(t *testing.T) {
	var d doneSet
	for _, i := range []int{0, 63, 64, 65535, 65536, 1 << 40, 63} {
		d.add(i)
	}
	require.Equal(t, 6, d.n, "adding twice counts once")
	for _, i := range []int{0, 63, 64, 65535, 65536, 1 << 40} {
		require.True(t, d.has(i), i)
	}
	for _, i := range []int{1, 62, 65, 65537, 1<<40 + 1, 1<<40 - 1} {
		require.False(t, d.has(i), i)
	}
	// A million finished runs in order cost a bit each.
	var big doneSet
	for i := range 1 << 20 {
		big.add(i)
	}
	require.Len(t, big.blocks, 16)
}

// TestResultsFileLineTooLong: a results file with a line too long to be a
// result (a binary file in its place) is refused, not read into memory.
func TestResultsFileLineTooLong(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "results.jsonl"))
	require.NoError(t, err)
	_, err = f.Write(make([]byte, MaxLineBytes+10))
	require.NoError(t, err)
	_, err = f.WriteString("\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = Run(Config{Grid: Grid{Scenario: "etcd-leader-crash", Members: []int{3}, Seeds: 1, SeedBase: 1}, Out: dir})
	require.ErrorContains(t, err, "read results "+filepath.Join(dir, "results.jsonl")+": the line at byte 0 is longer than 16777216 bytes, so not a result: move the file aside")
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe, "a file that cannot be read as results")
}
