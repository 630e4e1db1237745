package reports

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// TestCheckResult: a result with an impossible value, or a name that could
// carry shell or markdown, is refused with the field named.
func TestCheckResult(t *testing.T) {
	good := result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)
	require.NoError(t, CheckResult(&good))
	cases := []struct {
		name   string
		change func(r *scenarios.Result)
		want   string
	}{
		{"members -3", func(r *scenarios.Result) { r.Members = -3 }, "members -3 outside 1..7"},
		{"members 0", func(r *scenarios.Result) { r.Members = 0 }, "members 0 outside 1..7"},
		{"members 8", func(r *scenarios.Result) { r.Members = 8 }, "members 8 outside 1..7"},
		{"quorum up 5", func(r *scenarios.Result) { r.Metrics["quorum_up_fraction"] = 5 }, `metric "quorum_up_fraction" 5 is not a fraction in [0, 1]`},
		{"quorum up -1", func(r *scenarios.Result) { r.Metrics["quorum_up_fraction"] = -1 }, `"quorum_up_fraction" -1 is not a fraction`},
		{"write availability 1.5", func(r *scenarios.Result) { r.Metrics["write_availability"] = 1.5 }, `"write_availability" 1.5 is not a fraction`},
		{"request success 2", func(r *scenarios.Result) { r.Metrics["request_success"] = 2 }, `"request_success" 2 is not a fraction`},
		{"negative count", func(r *scenarios.Result) { r.Metrics["leader_elections"] = -4 }, `metric "leader_elections" -4 is negative`},
		{"negative duration metric", func(r *scenarios.Result) { r.Metrics["recovery_mean_s"] = -0.5 }, `"recovery_mean_s" -0.5 is negative`},
		{"NaN metric", func(r *scenarios.Result) { r.Metrics["faults"] = nan() }, `metric "faults" is NaN`},
		{"negative duration", func(r *scenarios.Result) { r.Duration = -time.Second }, "duration_ns -1000000000 is negative"},
		{"negative virtual seconds", func(r *scenarios.Result) { r.VirtualSeconds = -1 }, "virtual_seconds -1 is not a non-negative number"},
		{"NaN wall seconds", func(r *scenarios.Result) { r.WallSeconds = nan() }, "wall_seconds NaN"},
		{"no duration", func(r *scenarios.Result) { r.VirtualSeconds = 0 }, "no duration"},
		{"negative histogram", func(r *scenarios.Result) { r.WriteLatencyHist[2] = -1 }, "write_latency_hist[2] -1 is negative"},
		{"long histogram", func(r *scenarios.Result) { r.WriteLatencyHist = make([]int, 100) }, "write_latency_hist has 100 buckets"},
		{"shell in scenario", func(r *scenarios.Result) { r.Scenario = "etcd-chaos; touch pwned #" }, `scenario "etcd-chaos; touch pwned #" is not a scenario name`},
		{"markdown in scenario", func(r *scenarios.Result) { r.Scenario = "x](http://evil)" }, "is not a scenario name"},
		{"no scenario", func(r *scenarios.Result) { r.Scenario = "" }, `scenario "" is not a scenario name`},
		{"flag as scenario", func(r *scenarios.Result) { r.Scenario = "--help" }, "is not a scenario name"},
		{"shell in ablation", func(r *scenarios.Result) { r.Ablations = []string{"$(reboot)"} }, `ablation "$(reboot)" is not an ablation name`},
		{"shell in check", func(r *scenarios.Result) { r.Checks[0].Name = "a`id`" }, "check \"a`id`\" is not a check name"},
		{"unknown profile", func(r *scenarios.Result) { r.Profile = &nemesis.Profile{Name: "nope"} }, `profile "nope" is not a fault profile`},
		{"shell in profile", func(r *scenarios.Result) {
			r.Profile = &nemesis.Profile{Name: "crash-restart", Params: map[string]string{"mttf": "1m0s; rm -rf ~", "mttr": "20s"}}
		}, "is not a fault profile in canonical form"},
		{"profile not canonical", func(r *scenarios.Result) {
			r.Profile = &nemesis.Profile{Name: "crash-restart", Params: map[string]string{"mttf": "60s", "mttr": "20s"}}
		}, "is not a fault profile in canonical form"},
		{"shell in build", func(r *scenarios.Result) { r.Build = "v1; id" }, `build "v1; id" is not a build name`},
		{"bad schedule hash", func(r *scenarios.Result) { r.ScheduleHash = "zz" }, `schedule_hash "zz" is not 16 hex digits`},
	}
	for _, c := range cases {
		r := result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)
		c.change(&r)
		err := CheckResult(&r)
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
	// What is allowed: -1 for "none", request_success -1, a registered
	// scenario's user-defined kin, a development build.
	r := result("my-own_scenario.v2", 7, 1, "", 1, 1, true)
	r.Metrics["converge_s"], r.Metrics["request_success"] = -1, -1
	r.Build, r.ScheduleHash = "devel-0123456789ab", "0123456789abcdef"
	require.NoError(t, CheckResult(&r))
}

func nan() float64 { var z float64; return z / z }

// TestLoadWarnsOncePerFile: however many bad lines a file has, Load gives
// one warning for it, with the count and the first of each kind, and keeps
// the good lines.
func TestLoadWarnsOncePerFile(t *testing.T) {
	dir := t.TempDir()
	good := result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)
	line, err := json.Marshal(good)
	require.NoError(t, err)
	bad := result("etcd-profile", 3, 2, crash, 5.0, 0.9, true)
	badLine, err := json.Marshal(bad)
	require.NoError(t, err)
	var b bytes.Buffer
	b.Write(append(line, '\n'))
	for range 5000 {
		b.WriteString("garbage\n")
	}
	for range 3 {
		b.Write(append(badLine, '\n'))
	}
	b.WriteString("\n") // a blank line is no line
	b.Write(line[:20])  // a killed writer
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), b.Bytes(), 0o644))

	set, warnings, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Equal(t, filepath.Join(dir, "results.jsonl")+": skipped 5004 of 5005 lines: "+
		"5000 not results (the first: line 2: invalid character 'g' looking for beginning of value); "+
		`3 with impossible values (the first: line 5002: metric "quorum_up_fraction" 5 is not a fraction in [0, 1]); `+
		"a truncated last line at line 5005 (a killed writer?)", warnings[0])
	assert.Len(t, set.Results, 1)
	assert.Equal(t, 5004, set.Skipped)
	page, err := RenderHTML(set)
	require.NoError(t, err)
	assert.Contains(t, string(page), "5004 lines skipped (not results, or impossible values)")
}

// TestLoadBinaryFile: a 50 MB binary file gives one warning line, or one
// error when it holds no result at all; nothing is read past the line
// limit.
func TestLoadBinaryFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	dir := t.TempDir()
	data := make([]byte, 50<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	bin := filepath.Join(dir, "results-binary.jsonl")
	require.NoError(t, os.WriteFile(bin, data, 0o644))
	_, warnings, err := Load(bin)
	require.ErrorContains(t, err, "no results in")
	require.Len(t, warnings, 1)
	assert.Regexp(t, `results-binary.jsonl: skipped [0-9]+ of [0-9]+ lines: [0-9]+ not results \(the first: line 1: invalid character`, warnings[0])
	assert.Less(t, len(warnings[0]), 400)

	// Beside a good file, the report goes on with one warning.
	good := filepath.Join(dir, "results.jsonl")
	writeJSONL(t, good, []scenarios.Result{result("etcd-profile", 3, 1, crash, 0.9, 0.9, true)}, "")
	set, warnings, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	require.Len(t, set.Results, 1)
}

// TestLoadLimits: a line longer than MaxLineBytes is not a result; a file
// larger than MaxFileBytes, or a pipe that gives more, is refused; a device
// is not a results file.
func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "results-long.jsonl")
	f, err := os.Create(long)
	require.NoError(t, err)
	_, err = f.Write(bytes.Repeat([]byte("x"), MaxLineBytes+100))
	require.NoError(t, err)
	line, err := json.Marshal(result("etcd-profile", 3, 1, crash, 0.9, 0.9, true))
	require.NoError(t, err)
	_, err = f.Write(append(append([]byte("\n"), line...), '\n'))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	set, warnings, err := Load(long)
	require.NoError(t, err)
	require.Len(t, set.Results, 1)
	require.Equal(t, []string{long + ": skipped 1 of 2 lines: 1 not results (the first: line 1, longer than 16777216 bytes)"}, warnings)

	// A (sparse) file past the limit is refused before it is read.
	huge := filepath.Join(dir, "results-huge.jsonl")
	require.NoError(t, os.WriteFile(huge, nil, 0o644))
	require.NoError(t, os.Truncate(huge, MaxFileBytes+1))
	_, _, err = Load(huge)
	require.ErrorContains(t, err, "results-huge.jsonl: more than 4294967296 bytes, more than a report reads")

	// A pipe is read up to the limit (lowered here), then refused.
	defer func(n int64) { maxFileBytes = n }(maxFileBytes)
	maxFileBytes = 1 << 20
	fifo := filepath.Join(dir, "results-fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		zeros := make([]byte, 64<<10)
		for {
			if _, err := w.Write(zeros); err != nil {
				return // the reader gave up
			}
		}
	}()
	_, _, err = Load(fifo)
	require.ErrorContains(t, err, "results-fifo.jsonl: more than 1048576 bytes")

	if _, err := os.Stat("/dev/zero"); err == nil {
		_, _, err := Load("/dev/zero")
		require.ErrorContains(t, err, "/dev/zero: not a results file")
	}
}

// TestNoInjectionFromResults: a results file from elsewhere cannot put its
// names into the summary or a replay command: such a line is skipped, and
// nothing of it is printed.
func TestNoInjectionFromResults(t *testing.T) {
	dir := t.TempDir()
	evil := result("etcd-chaos; touch pwned #", 3, 7, "", 1, 1, false)
	evilCheck := result("etcd-chaos", 3, 8, "", 1, 1, false)
	evilCheck.Checks = append(evilCheck.Checks, checks.Result{Name: "x` $(id) `", OK: false})
	evilProfile := result("etcd-chaos", 3, 9, "", 1, 1, false)
	evilProfile.Profile = &nemesis.Profile{Name: "crash-restart", Params: map[string]string{"mttf": "1m0s", "mttr": "20s | `id`"}}
	ok := result("etcd-chaos", 3, 1, "", 1, 1, false)
	writeJSONL(t, filepath.Join(dir, "results.jsonl"), []scenarios.Result{evil, evilCheck, evilProfile, ok}, "")
	set, warnings, err := Load(dir)
	require.NoError(t, err)
	require.Len(t, set.Results, 1)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "3 with impossible values")
	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, set))
	for _, bad := range []string{"pwned", "$(id)", "`id`", "| `id`"} {
		assert.NotContains(t, md.String(), bad)
	}
	assert.Contains(t, md.String(), "`kubesim run --scenario etcd-chaos --members 3 --seed 1 --duration 50s` (failed: linearizability)")
}

// TestReportKeepsLengthsApart: runs of the same seeds at two lengths are
// two groups, named by their lengths, not duplicates of one another; runs
// of two builds likewise.
func TestReportKeepsLengthsApart(t *testing.T) {
	var rs []scenarios.Result
	for seed := uint64(1); seed <= 3; seed++ {
		short := result("etcd-profile", 3, seed, crash, 0.9, 0.9, true)
		short.Duration = time.Minute
		long := result("etcd-profile", 3, seed, crash, 0.7, 0.7, true)
		long.Duration = 5 * time.Minute
		rs = append(rs, short, long)
	}
	dir := t.TempDir()
	writeJSONL(t, filepath.Join(dir, "results.jsonl"), rs, "")
	set, _, err := Load(dir)
	require.NoError(t, err)
	require.Zero(t, set.Duplicates)
	groups := set.Groups()
	require.Len(t, groups, 2)
	assert.Equal(t, "etcd-profile / "+crash+" / 1m0s", groups[0].SeriesName())
	assert.Equal(t, "etcd-profile / "+crash+" / 5m0s", groups[1].SeriesName())
	assert.InDelta(t, 0.9, groups[0].QuorumUp.Mean, 1e-12)
	assert.InDelta(t, 0.7, groups[1].QuorumUp.Mean, 1e-12)

	// One length: no length in the name.
	one := Aggregate(rs[:1])
	assert.Equal(t, "etcd-profile / "+crash, one[0].SeriesName())

	// Two builds, one of them unrecorded.
	a, b := rs[0], rs[0]
	b.Build = "v0.4.0"
	gs := Aggregate([]scenarios.Result{a, b})
	require.Len(t, gs, 2)
	assert.Equal(t, "etcd-profile / "+crash+" / build unrecorded", gs[0].SeriesName())
	assert.Equal(t, "etcd-profile / "+crash+" / build v0.4.0", gs[1].SeriesName())
}

// TestReplayOptionsOfAScheduledRun: the timeline of a run with an explicit
// schedule re-runs that schedule, at the run's recorded length.
func TestReplayOptionsOfAScheduledRun(t *testing.T) {
	s := sim.Schedule{{At: 5 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"etcd-2"}}, For: 5 * time.Second}}
	res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-leader-crash", Members: 3, Seed: 2, Duration: 30 * time.Second, Schedule: s})
	require.NoError(t, err)
	o, err := ReplayOptions(res)
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, o.Duration)
	assert.Equal(t, s.String(), o.Schedule.String())
	tl, err := RecordTimeline(res)
	require.NoError(t, err)
	assert.Equal(t, res.TraceHash, tl.TraceHash)

	res.Schedule = strings.Replace(res.Schedule, "etcd-2", "etcd-3", 1)
	_, err = ReplayOptions(res)
	require.ErrorContains(t, err, "not the recorded")
}
