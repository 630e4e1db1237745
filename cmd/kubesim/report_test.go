package main

import (
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
	assert.Contains(t, stderr, "skipped a truncated last line")
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
