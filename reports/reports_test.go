package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

func TestQuorumUpProbability(t *testing.T) {
	cases := []struct {
		n    int
		p    float64
		want float64
	}{
		{1, 0.9, 0.9},
		{2, 0.9, 0.81}, // both must be up
		{3, 0.9, 0.972},
		{4, 0.9, 0.9477}, // a 4th member lowers it
		{5, 0.9, 0.99144},
		{3, 0.75, 0.84375},
		{4, 0.75, 0.73828125},
		{7, 0.5, 0.5},
		{3, 1, 1},
		{3, 0, 0},
		{0, 0.9, 0},
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, QuorumUpProbability(c.n, c.p), 1e-12, "n=%d p=%g", c.n, c.p)
	}
}

func TestUpProbabilityAndFaultRate(t *testing.T) {
	cases := []struct {
		profile  string
		up       float64
		hasUp    bool
		rate     float64
		unit     string
		hasRate  bool
		quorum3  float64
		hasPred3 bool
	}{
		{"crash-restart:mttf=1m0s,mttr=20s", 0.75, true, 60, UnitCrashes, true, 0.84375, true},
		{"crash-restart:mttf=1m30s,mttr=10s", 0.9, true, 40, UnitCrashes, true, 0.972, true},
		{"partitions:rate=2", 0, false, 120, UnitPartitions, true, 0, false},
		{"flaky-network", 0, false, 0, "", false, 0, false},
	}
	for _, c := range cases {
		p, err := nemesis.ParseProfile(c.profile)
		require.NoError(t, err)
		up, ok := UpProbability(p)
		assert.Equal(t, c.hasUp, ok, c.profile)
		assert.InDelta(t, c.up, up, 1e-12, c.profile)
		rate, unit, ok := FaultRate(p)
		assert.Equal(t, c.hasRate, ok, c.profile)
		assert.InDelta(t, c.rate, rate, 1e-9, c.profile)
		assert.Equal(t, c.unit, unit, c.profile)
		g := Aggregate([]scenarios.Result{{Scenario: "s", Members: 3, Profile: &p, Metrics: map[string]float64{}}})[0]
		assert.Equal(t, c.hasPred3, g.HasPrediction, c.profile)
		assert.InDelta(t, c.quorum3, g.Prediction, 1e-12, c.profile)
	}
}

func TestMeanCI(t *testing.T) {
	cases := []struct {
		xs               []float64
		mean, sd, half   float64
		n                int
		lo, hi           float64
		describeExpected string
	}{
		{nil, 0, 0, 0, 0, 0, 0, "empty"},
		{[]float64{0.7}, 0.7, 0, 0, 1, 0.7, 0.7, "one run: no interval"},
		{[]float64{1, 1, 1}, 1, 0, 0, 3, 1, 1, "no spread"},
		// s = sqrt(5/3), half = 1.96*s/2
		{[]float64{1, 2, 3, 4}, 2.5, 1.2909944487358056, 1.2651745597610895, 4, 2.5 - 1.2651745597610895, 2.5 + 1.2651745597610895, "four values"},
	}
	for _, c := range cases {
		s := MeanCI(c.xs)
		assert.Equal(t, c.n, s.N, c.describeExpected)
		assert.InDelta(t, c.mean, s.Mean, 1e-12, c.describeExpected)
		assert.InDelta(t, c.sd, s.SD, 1e-12, c.describeExpected)
		assert.InDelta(t, c.half, s.Half, 1e-12, c.describeExpected)
		assert.InDelta(t, c.lo, s.Lo(), 1e-12, c.describeExpected)
		assert.InDelta(t, c.hi, s.Hi(), 1e-12, c.describeExpected)
	}
}

// result builds a hand-made run result.
func result(scenario string, members int, seed uint64, profile string, quorum, writes float64, ok bool) scenarios.Result {
	r := scenarios.Result{
		Scenario: scenario, Members: members, Seed: seed, VirtualSeconds: 50, OK: ok,
		TraceHash: "0000000000000000",
		Checks: []checks.Result{
			{Name: "raft-safety", OK: true},
			{Name: "linearizability", OK: ok, Detail: map[bool]string{true: "", false: "not linearizable"}[ok]},
		},
		Metrics: map[string]float64{
			"quorum_up_fraction": quorum, "write_availability": writes, "read_availability": 1,
			"leader_elections": float64(seed), "faults": 2, "faults_unrecovered": 0,
			"recovery_mean_s": 1.5, "recovery_max_s": float64(seed),
		},
		WriteLatencyHist: make([]int, len(metrics.LatencyBucketsMs)+1),
	}
	r.WriteLatencyHist[members] = 10
	if profile != "" {
		p, err := nemesis.ParseProfile(profile)
		if err != nil {
			panic(err)
		}
		r.Profile = &p
	}
	return r
}

func writeJSONL(t *testing.T, path string, rs []scenarios.Result, tail string) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range rs {
		line, err := json.Marshal(r)
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	b.WriteString(tail)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

const crash = "crash-restart:mttf=1m0s,mttr=20s"

func TestLoadMergesShards(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	r1 := result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)
	r2 := result("etcd-profile", 3, 2, crash, 0.8, 0.8, true)
	r3 := result("etcd-profile", 5, 1, crash, 1, 1, true)
	r4 := result("etcd-profile", 4, 1, crash, 0.7, 0.7, false)
	dup := r2
	dup.Metrics = map[string]float64{"quorum_up_fraction": 0} // the second copy loses
	otherProfile := result("etcd-profile", 3, 1, "crash-restart:mttf=2m0s,mttr=20s", 0.95, 0.95, true)
	ablated := r1
	ablated.Ablations = []string{"raft-ack-before-fsync"}
	longer := r1 // the same run, only longer: not a duplicate
	longer.Duration = 2 * time.Minute
	buggified := r1 // the same run with BUGGIFY on: not a duplicate either
	buggified.Buggify = &scenarios.Buggify{Active: []string{"etcd-apply-lag"}, Fired: []int{3}}
	half, err := json.Marshal(r4)
	require.NoError(t, err)
	// Shard 0 in dir a ends with a killed writer's half line.
	writeJSONL(t, filepath.Join(a, "results-shard-0-of-2.jsonl"), []scenarios.Result{r3, r1, r2}, string(half[:len(half)/2]))
	// Shard 1 in dir a overlaps with shard 0 on r2.
	writeJSONL(t, filepath.Join(a, "results-shard-1-of-2.jsonl"), []scenarios.Result{dup, r4}, "")
	// Another machine's directory repeats r1 and adds two distinct runs.
	writeJSONL(t, filepath.Join(b, "results.jsonl"), []scenarios.Result{r1, otherProfile, ablated, longer, buggified}, "")
	require.NoError(t, os.WriteFile(filepath.Join(b, "other.jsonl"), []byte("not read\n"), 0o644))

	set, warnings, err := Load(a, b)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "results-shard-0-of-2.jsonl: skipped 1 of 4 lines: a truncated last line at line 4 (a killed writer?)")
	assert.Equal(t, 2, set.Duplicates)
	assert.Len(t, set.Sources, 3)
	var got []string
	for _, r := range set.Results {
		got = append(got, r.Key())
	}
	assert.Equal(t, []string{
		"etcd-profile|3|1|50s|crash-restart:mttf=1m0s,mttr=20s|||",
		"etcd-profile|3|2|50s|crash-restart:mttf=1m0s,mttr=20s|||",
		"etcd-profile|4|1|50s|crash-restart:mttf=1m0s,mttr=20s|||",
		"etcd-profile|5|1|50s|crash-restart:mttf=1m0s,mttr=20s|||",
		"etcd-profile|3|1|2m0s|crash-restart:mttf=1m0s,mttr=20s|||",
		"etcd-profile|3|1|50s|crash-restart:mttf=1m0s,mttr=20s||||buggify",
		"etcd-profile|3|1|50s|crash-restart:mttf=1m0s,mttr=20s||raft-ack-before-fsync|",
		"etcd-profile|3|1|50s|crash-restart:mttf=2m0s,mttr=20s|||",
	}, got)
	assert.Equal(t, 0.8, set.Results[1].Metrics["quorum_up_fraction"], "the first copy of a run wins")
	var series []string
	for _, g := range set.Groups() {
		if g.Buggify {
			series = append(series, g.SeriesName())
		}
	}
	assert.Equal(t, []string{"etcd-profile / crash-restart:mttf=1m0s,mttr=20s / buggify / 50s"}, series, "BUGGIFY runs are a series of their own")

	// Loading the files one by one, in the same order, gives the same set.
	files := append([]string(nil), set.Sources...)
	set2, _, err := Load(files...)
	require.NoError(t, err)
	assert.Equal(t, set.Results, set2.Results)
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	noResults := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(noResults, "results.jsonl"), []byte("\n{\"scen"), 0o644))
	cases := []struct {
		paths []string
		want  string
	}{
		{nil, "no results directory given"},
		{[]string{filepath.Join(empty, "missing")}, "no such file or directory"},
		{[]string{empty}, "no results*.jsonl file in the directory"},
		{[]string{noResults}, "no results in"},
	}
	for _, c := range cases {
		_, _, err := Load(c.paths...)
		require.Error(t, err, "%v", c.paths)
		assert.Contains(t, err.Error(), c.want)
		assert.NotContains(t, err.Error(), "\n")
	}
}

func TestAggregate(t *testing.T) {
	rs := []scenarios.Result{
		result("etcd-profile", 3, 1, crash, 0.9, 0.8, true),
		result("etcd-profile", 3, 2, crash, 0.7, 0.6, false),
		result("etcd-profile", 3, 3, crash, 0.8, 0.7, true),
		result("etcd-profile", 5, 1, crash, 1, 1, true),
		result("etcd-leader-crash", 3, 1, "", 1, 0.99, true),
	}
	rs[1].Metrics["faults"], rs[1].Metrics["recovery_mean_s"] = 0, 0 // no recovery to average
	groups := Aggregate(rs)
	require.Len(t, groups, 3)
	assert.Equal(t, "etcd-leader-crash / scenario faults", groups[0].SeriesName())
	assert.False(t, groups[0].HasPrediction)
	g := groups[1]
	assert.Equal(t, 3, g.Members)
	assert.Equal(t, crash, g.ProfileName())
	assert.Len(t, g.Runs, 3)
	assert.InDelta(t, 0.8, g.QuorumUp.Mean, 1e-12)
	assert.InDelta(t, 0.1, g.QuorumUp.SD, 1e-12)
	assert.InDelta(t, 1.96*0.1/1.7320508075688772, g.QuorumUp.Half, 1e-12)
	assert.InDelta(t, 0.7, g.WriteAvail.Mean, 1e-12)
	assert.InDelta(t, 2, g.Elections, 1e-12)
	assert.InDelta(t, 1.5, g.RecoveryMean, 1e-12)
	assert.InDelta(t, 3, g.RecoveryMax, 1e-12)
	assert.Equal(t, 2, g.Passed)
	assert.Equal(t, 1, g.Failed)
	assert.Equal(t, []CheckCount{{"linearizability", 2, 1}, {"raft-safety", 3, 0}}, g.Checks)
	assert.Equal(t, 30, g.LatencyHist[3])
	assert.True(t, g.HasPrediction)
	assert.InDelta(t, 0.84375, g.Prediction, 1e-12)
	assert.True(t, g.HasRate)
	assert.InDelta(t, 60, g.FaultRate, 1e-12)
	assert.Equal(t, 5, groups[2].Members)
	assert.InDelta(t, QuorumUpProbability(5, 0.75), groups[2].Prediction, 1e-12)
}

func TestClaims(t *testing.T) {
	var rs []scenarios.Result
	for seed := uint64(1); seed <= 10; seed++ {
		d := float64(seed%3) * 0.002
		rs = append(rs,
			result("etcd-profile", 3, seed, crash, 0.97+d, 0.96, true),
			result("etcd-profile", 4, seed, crash, 0.94+d, 0.93, true),
			result("etcd-profile", 5, seed, crash, 0.99+d, 0.98, true))
	}
	// A second series where 4 and 5 are no different from 3.
	for seed := uint64(1); seed <= 3; seed++ {
		d := float64(seed) * 0.05
		for _, m := range []int{3, 4, 5} {
			rs = append(rs, result("etcd-profile", m, seed, "crash-restart:mttf=2m0s,mttr=20s", 0.8+d, 0.8, true))
		}
	}
	set := &Set{Results: rs}
	claims := Claims(set)
	require.Len(t, claims, 4)
	// Series sort by profile: the 1m0s series first.
	assert.Equal(t, Supported, claims[0].Outcome, claims[0].Verdict)
	assert.Contains(t, claims[0].Text, "4 members are no more available than 3")
	assert.Equal(t, Supported, claims[1].Outcome, claims[1].Verdict)
	assert.Equal(t, Inconclusive, claims[2].Outcome, claims[2].Verdict)
	assert.Equal(t, Inconclusive, claims[3].Outcome, claims[3].Verdict)
	assert.Contains(t, claims[3].Verdict, "binomial")

	// 4 members measurably better than 3 contradicts the claim.
	var bad []scenarios.Result
	for seed := uint64(1); seed <= 5; seed++ {
		d := float64(seed) * 0.001
		bad = append(bad, result("s", 3, seed, "", 0.5+d, 1, true), result("s", 4, seed, "", 0.9+d, 1, true))
	}
	c := Claims(&Set{Results: bad})
	require.Len(t, c, 1)
	assert.Equal(t, Contradicted, c[0].Outcome)
}

// sweepDir runs a small real sweep (short runs) into a directory.
func sweepDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p, err := nemesis.ParseProfile(crash)
	require.NoError(t, err)
	var rs []scenarios.Result
	for _, m := range []int{3, 4, 5} {
		for seed := uint64(1); seed <= 2; seed++ {
			r, err := scenarios.Run(scenarios.Options{Scenario: "etcd-profile", Members: m, Seed: seed, Profile: &p, Duration: 30 * time.Second})
			require.NoError(t, err)
			rs = append(rs, r)
		}
	}
	writeJSONL(t, filepath.Join(dir, "results.jsonl"), rs, "")
	return dir
}

// containsAll reports each missing string without printing the page.
func containsAll(t *testing.T, page string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		assert.True(t, strings.Contains(page, w), "missing %q", w)
	}
}

var urlRe = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s"'<>)]*`)

func TestReportFiles(t *testing.T) {
	dir := sweepDir(t)
	set, warnings, err := Load(dir)
	require.NoError(t, err)
	assert.Empty(t, warnings)

	paths, err := WritePlots(dir, set)
	require.NoError(t, err)
	drawn := append([]string{PlotLatency}, PlotNames...) // the runs made writes
	assert.Len(t, paths, 2*len(drawn))
	for _, name := range drawn {
		png, err := os.ReadFile(filepath.Join(dir, name+".png"))
		require.NoError(t, err, name)
		assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "%s.png is a PNG", name)
		svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		require.NoError(t, err, name)
		assert.Contains(t, string(svg), "<svg", name)
		assert.Contains(t, string(svg), "</svg>", name)
	}

	require.NoError(t, WriteHTML(dir, set))
	html, err := os.ReadFile(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	page := string(html)
	assert.Equal(t, len(drawn), strings.Count(page, "<svg "), "one inline SVG per plot")
	for _, name := range drawn {
		containsAll(t, page, `<figure id="`+name+`">`)
	}
	// Self-contained: no script, stylesheet, image or font from elsewhere;
	// the only URLs are the SVG namespaces.
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url(", "src="} {
		assert.False(t, strings.Contains(strings.ToLower(page), bad), "report.html contains %q", bad)
	}
	for _, u := range urlRe.FindAllString(page, -1) {
		assert.Contains(t, []string{"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, u, "external reference")
	}
	assert.False(t, strings.Contains(page, "<?xml"), "no XML prolog inside HTML")
	containsAll(t, page, "What the plots claim", "binomial", "crash-restart:mttf=1m0s,mttr=20s", "mttf", "mttr",
		"member up probability", "Check verdicts", "raft-safety", "Metrics per group",
		"re-run from its seed; the trace hash")

	// The same results give the same bytes.
	set2, _, err := Load(dir)
	require.NoError(t, err)
	again, err := RenderHTML(set2)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(html, again), "report.html is deterministic")

	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, set))
	assert.Contains(t, md.String(), "## etcd-profile / crash-restart:mttf=1m0s,mttr=20s")
	assert.Regexp(t, `\| 4 \| 2 \| [0-9.]+ ± [0-9.]+ \| 0\.7383 \|`, md.String())
	assert.Contains(t, md.String(), "## Claims")
}

func TestReportFailingRuns(t *testing.T) {
	dir := t.TempDir()
	rs := []scenarios.Result{
		result("etcd-leader-crash", 3, 1, "", 1, 1, true),
		result("etcd-leader-crash", 3, 7, "", 1, 1, false),
	}
	rs[1].Ablations = []string{"raft-ack-before-fsync"}
	writeJSONL(t, filepath.Join(dir, "results.jsonl"), rs, "")
	set, _, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), set.TimelineRun().Seed, "the first failing run is drawn")
	page, err := RenderHTML(set)
	require.NoError(t, err)
	containsAll(t, string(page),
		"kubesim run --scenario etcd-leader-crash --members 3 --seed 7 --ablate raft-ack-before-fsync --duration 50s",
		"linearizability: not linearizable",
		"differs from the recorded") // hand-made results have a made-up trace hash
	assert.Equal(t, len(PlotNames)+1, strings.Count(string(page), "<svg "), "and the latency plot")
}

func TestReplayCommand(t *testing.T) {
	r := result("etcd-leader-crash", 5, 9, crash, 1, 1, true)
	r.VirtualSeconds = 120 // the scenario's default: no --duration
	r.Ablations = []string{"a", "b"}
	assert.Equal(t, "kubesim run --scenario etcd-leader-crash --members 5 --seed 9 --ablate a --ablate b --faults "+crash, ReplayCommand(r))

	// A run asked for 5 minutes and cut short (its reader went away) is
	// replayed at the length asked for, not the length it reached.
	r.Duration, r.VirtualSeconds = 5*time.Minute, 61.5
	assert.Contains(t, ReplayCommand(r), " --duration 5m0s ")
}

func TestTimelineRecorder(t *testing.T) {
	p, err := scenarios.Prepare(scenarios.Options{Scenario: "etcd-leader-crash", Members: 3, Seed: 1, Duration: 50 * time.Second})
	require.NoError(t, err)
	rec := NewTimelineRecorder(p.World, p.Cluster.Members)
	p.World.Subscribe(rec.Observe)
	res, err := p.Run()
	require.NoError(t, err)
	tl := rec.Finish(p.World.Now())

	assert.InDelta(t, 50, tl.End, 1e-9)
	require.Len(t, tl.Members, 3)
	leaders, downs := 0, 0
	var crashed string
	for _, m := range tl.Members {
		leaders += len(m.Leader)
		downs += len(m.Down)
		for _, iv := range m.Down {
			assert.Less(t, iv.From, iv.To)
			assert.InDelta(t, 10, iv.To-iv.From, 1e-9, "the leader is down for 10 s")
			crashed = m.Name
		}
		for _, iv := range m.Leader {
			assert.LessOrEqual(t, iv.From, iv.To)
		}
	}
	assert.GreaterOrEqual(t, leaders, 2, "a new leader takes over after the crash")
	assert.Equal(t, 1, downs, "one leader crash fits before the settle window")
	// The crashed member led until it crashed.
	for _, m := range tl.Members {
		if m.Name == crashed {
			require.NotEmpty(t, m.Leader)
			assert.InDelta(t, m.Down[0].From, m.Leader[0].To, 1e-9)
		}
	}
	ok, failed := 0, 0
	for _, w := range tl.Writes {
		if w.OK {
			ok++
		} else {
			failed++
		}
	}
	assert.Greater(t, ok, 100)
	assert.Equal(t, int(res.Metrics["writes_ok"]), ok)
	assert.Empty(t, tl.Partitions)

	// RecordTimeline re-runs the same world from the result.
	again, err := RecordTimeline(res)
	require.NoError(t, err)
	assert.Equal(t, res.TraceHash, again.TraceHash)
	assert.Equal(t, tl.Members, again.Members)
}

func TestTimelinePartitions(t *testing.T) {
	p, err := scenarios.Prepare(scenarios.Options{Scenario: "etcd-minority-partition", Members: 3, Seed: 2, Duration: 60 * time.Second})
	require.NoError(t, err)
	rec := NewTimelineRecorder(p.World, p.Cluster.Members)
	p.World.Subscribe(rec.Observe)
	_, err = p.Run()
	require.NoError(t, err)
	tl := rec.Finish(p.World.Now())
	require.Len(t, tl.Partitions, 1)
	assert.InDelta(t, 20, tl.Partitions[0].To-tl.Partitions[0].From, 1e-9)
	f, err := TimelineFigure(tl, &scenarios.Result{Scenario: "etcd-minority-partition", Members: 3, Seed: 2, OK: true})
	require.NoError(t, err)
	svg, err := f.Render("svg")
	require.NoError(t, err)
	assert.Contains(t, string(svg), "etcd-3")
}

// TestStackSummary: full-stack runs (those reporting converge_s) get the
// control-plane summary, in the markdown and the HTML; a set without them
// gets none.
func TestStackSummary(t *testing.T) {
	var rs []scenarios.Result
	for seed, conv := range []float64{10, 20, -1} {
		r := result("stack-chaos", 3, uint64(seed+1), "", 1, 0, true)
		r.Metrics["converge_s"] = conv
		r.Metrics["double_running_s"] = 6
		r.Metrics["healthy_restarts"] = float64(seed)
		r.Metrics["cm_pod_creates"] = 16
		rs = append(rs, r)
	}
	etcd := result("etcd-chaos", 3, 1, "", 1, 1, true)
	set := &Set{Results: append(rs, etcd)}
	var stack *Group
	for _, g := range set.Groups() {
		if g.Scenario == "stack-chaos" {
			stack = g
		} else {
			require.Zero(t, g.Stack.Runs, "an etcd run is no full-stack run")
		}
	}
	require.NotNil(t, stack)
	require.Equal(t, 3, stack.Stack.Runs)
	require.Equal(t, 1, stack.Stack.NotConverged)
	require.Equal(t, 2, stack.Stack.Converge.N)
	require.InDelta(t, 15, stack.Stack.Converge.Mean, 1e-9)
	require.InDelta(t, 1, stack.Stack.HealthyRestarts, 1e-9)

	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, set))
	require.Contains(t, md.String(), "## The control plane (full-stack runs)")
	require.Contains(t, md.String(), "| stack-chaos / scenario faults | 3 | 3 | 15.0 ± ")

	var only bytes.Buffer
	require.NoError(t, WriteMarkdown(&only, &Set{Results: []scenarios.Result{etcd}}))
	require.NotContains(t, only.String(), "The control plane")

	dir := t.TempDir()
	require.NoError(t, WriteHTML(dir, set))
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	require.Contains(t, string(html), "<h2>The control plane</h2>")
	require.Contains(t, string(html), "<td>15.0 ± ")
}
