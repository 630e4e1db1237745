package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/reports"
	"github.com/kubesim/kubesim/scenarios"
)

// TestReportBadInput: every bad input to `kubesim report` exits 2 with one
// line that names it.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	truncated := filepath.Join(dir, "truncated")
	require.NoError(t, os.Mkdir(truncated, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(truncated, "results.jsonl"), []byte(`{"scenario":"etcd-`), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "report: no results directory given"},
		{[]string{"report", filepath.Join(dir, "missing")}, "missing: no such file or directory"},
		{[]string{"report", empty}, "no results*.jsonl file in the directory"},
		{[]string{"report", truncated}, "report: no results in"},
		{[]string{"report", "--bogus", empty}, "flag provided but not defined: -bogus"},
	}
	for _, c := range cases {
		code, _, stderr := run(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		last := lines[len(lines)-1]
		assert.Contains(t, last, c.want, "%v", c.args)
		assert.True(t, strings.HasPrefix(last, "kubesim: report: "), last)
	}
	// The truncated line is reported as a warning before the error.
	_, _, stderr := run("report", truncated)
	assert.Contains(t, stderr, "skipped 1 of 1 lines: a truncated last line at line 1")
}

func TestReportWritesFiles(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	mk := func(members int, seed uint64) scenarios.Result {
		return scenarios.Result{Scenario: "etcd-leader-crash", Members: members, Seed: seed, VirtualSeconds: 50, OK: true,
			Checks:  []checks.Result{{Name: "raft-safety", OK: true}},
			Metrics: map[string]float64{"quorum_up_fraction": 1, "write_availability": 0.99}}
	}
	write := func(path string, rs ...scenarios.Result) {
		var lines []string
		for _, r := range rs {
			l, err := json.Marshal(r)
			require.NoError(t, err)
			lines = append(lines, string(l))
		}
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	}
	write(filepath.Join(a, "results-shard-0-of-2.jsonl"), mk(3, 1), mk(5, 1))
	write(filepath.Join(b, "results-shard-1-of-2.jsonl"), mk(3, 1), mk(3, 2), mk(4, 1))

	code, stdout, stderr := run("report", a, b)
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	assert.Equal(t, filepath.Join(a, reports.ReportFile), lines[len(lines)-1], "the report's path comes last")
	assert.Contains(t, stdout, "# kubesim report: 4 runs, 3 groups")
	assert.Contains(t, stdout, "| 3 | 2 |")
	for _, name := range append(reports.PlotNames, "report") {
		ext := []string{".png", ".svg"}
		if name == "report" {
			ext = []string{".html"}
		}
		for _, e := range ext {
			_, err := os.Stat(filepath.Join(a, name+e))
			assert.NoError(t, err, name+e)
		}
	}
	_, err := os.Stat(filepath.Join(b, reports.ReportFile))
	assert.True(t, os.IsNotExist(err), "only the first DIR gets the report")
}

// writeResults writes a results file of two passing runs into dir.
func writeResults(t *testing.T, dir string) {
	t.Helper()
	var lines []string
	for _, m := range []int{3, 5} {
		r := scenarios.Result{Scenario: "etcd-leader-crash", Members: m, Seed: 1, VirtualSeconds: 50, OK: true,
			Checks:  []checks.Result{{Name: "raft-safety", OK: true}},
			Metrics: map[string]float64{"quorum_up_fraction": 1, "write_availability": 0.99}}
		l, err := json.Marshal(r)
		require.NoError(t, err)
		lines = append(lines, string(l))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// TestReportKeepsExistingReport: without --out, report writes into the
// first DIR only when it holds no report; a report (or a plot of one)
// already there is left alone, with one line that says how to replace it
// (--out DIR) or write elsewhere; --out writes where it says, before or
// after the DIRs, creating the directory.
func TestReportKeepsExistingReport(t *testing.T) {
	a := t.TempDir()
	writeResults(t, a)
	code, stdout, stderr := run("report", a)
	require.Equal(t, 0, code, stderr)
	report := filepath.Join(a, reports.ReportFile)
	assert.True(t, strings.HasSuffix(stdout, report+"\n"))
	require.NoError(t, os.WriteFile(report, []byte("mine"), 0o644))

	code, _, stderr = run("report", a)
	assert.Equal(t, 2, code)
	assert.Equal(t, "kubesim: report: "+a+" holds a report already (report.html); replace it with --out "+a+", or write elsewhere with --out DIR\n", stderr)
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data), "left alone")

	elsewhere := filepath.Join(t.TempDir(), "new", "dir")
	code, stdout, stderr = run("report", a, "--out", elsewhere)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasSuffix(stdout, filepath.Join(elsewhere, reports.ReportFile)+"\n"))
	for _, name := range reports.ReportFiles() {
		_, err := os.Stat(filepath.Join(elsewhere, name))
		assert.NoError(t, err, name)
	}
	data, err = os.ReadFile(report)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data), "still left alone")

	code, _, stderr = run("report", "--out", a, a)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<html", "replaced when asked")

	// A plot alone counts as a report.
	b := t.TempDir()
	writeResults(t, b)
	require.NoError(t, os.WriteFile(filepath.Join(b, reports.PlotNames[0]+".png"), []byte("png"), 0o644))
	code, _, stderr = run("report", b)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "holds a report already ("+reports.PlotNames[0]+".png)")
}

// TestReportOutUnwritable: an --out that cannot be written is bad input,
// reported in one line before anything is written.
func TestReportOutUnwritable(t *testing.T) {
	a := t.TempDir()
	writeResults(t, a)
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	code, stdout, stderr := run("report", "--out", filepath.Join(file, "sub"), a)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "kubesim: report: cannot write the report into "+filepath.Join(file, "sub")+" (mkdir "+file+": not a directory): name a directory you can write with --out DIR\n", stderr)
	if os.Geteuid() != 0 { // root writes anywhere
		ro := t.TempDir()
		require.NoError(t, os.Chmod(ro, 0o500))
		code, _, stderr = run("report", "--out", ro, a)
		assert.Equal(t, 2, code)
		assert.Contains(t, stderr, "permission denied")
	}
}

// TestReportClosedPipe: a reader that stops early (kubesim report DIR |
// head) ends the report quietly, with status 0.
func TestReportClosedPipe(t *testing.T) {
	a := t.TempDir()
	writeResults(t, a)
	var stderr bytes.Buffer
	pipe := &brokenPipe{}
	code := realMain([]string{"report", a}, pipe, &stderr)
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr.String())
	assert.Equal(t, 1, pipe.writes, "the markdown met the closed pipe")
}

// TestSweepResultsLine: a sweep that cannot read its results file exits 4
// (a file that cannot be read) and names no results file; a sweep run again in its own directory replaces its own
// report.
func TestSweepResultsLine(t *testing.T) {
	out := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(out, "results.jsonl"), 0o755))
	args := []string{"sweep", "--scenario", "etcd-leader-crash", "--members", "3", "--seeds", "1", "--duration", "40s", "--out", out}
	code, _, stderr := run(args...)
	assert.Equal(t, exitIO, code)
	assert.NotContains(t, stderr, "results in")
	assert.Contains(t, stderr, "is a directory")

	out = t.TempDir()
	args[len(args)-1] = out
	for i := 0; i < 2; i++ {
		code, stdout, stderr := run(args...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "results in "+filepath.Join(out, "results.jsonl"))
		assert.True(t, strings.HasSuffix(stdout, filepath.Join(out, reports.ReportFile)+"\n"))
	}
}
