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
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = realMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestBadInput: every kind of bad input gets exit status 2 and one line
// that names the input and how to fix it.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	badSched := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(badSched, []byte("10s crash etcd-1 for soon\n"), 0o644))
	notDir := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(notDir, nil, 0o644))
	unknownTarget := filepath.Join(dir, "target.txt")
	require.NoError(t, os.WriteFile(unknownTarget, []byte("10s crash etcd-9\n"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run"}, "--scenario is required"},
		{[]string{"run", "--scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"run", "--scenario", "etcd-chaos", "--members", "9"}, "--members must be between 1 and 7, got 9"},
		{[]string{"run", "--scenario", "etcd-chaos", "--members", "x"}, `invalid value "x" for flag -members`},
		{[]string{"run", "--scenario", "etcd-chaos", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"run", "--scenario", "etcd-chaos", "--ablate", "nope"}, `unknown ablation "nope"`},
		{[]string{"run", "--scenario", "etcd-chaos", "--schedule", filepath.Join(dir, "missing.txt")}, "no such file"},
		{[]string{"run", "--scenario", "etcd-chaos", "--schedule", badSched}, `bad.txt:1: field "for": invalid duration "soon"`},
		{[]string{"run", "--scenario", "etcd-chaos", "--schedule", unknownTarget}, `target.txt:1: crash at 10s: unknown fault target "etcd-9"`},
		{[]string{"run", "--scenario", "etcd-chaos", "extra"}, `unexpected argument "extra"`},
		{[]string{"scenarios", "x"}, "takes no arguments"},
		{[]string{"run", "--scenario", "etcd-chaos", "--duration", "0s"}, "--duration must be positive, e.g. 90s (leave it out for the scenario's own length), got 0s"},
		{[]string{"run", "--scenario", "etcd-chaos", "--duration", "-5s"}, "--duration must be positive, e.g. 90s (leave it out for the scenario's own length), got -5s"},
		{[]string{"run", "--scenario", "etcd-chaos", "--trace", "-", "--timeline", "-"}, "--trace - and --timeline - would both write to standard output"},
		{[]string{"run", "--scenario", "etcd-chaos", "--timeline-filter", "kind=fault"}, "--timeline-filter filters the timeline: add --timeline FILE"},
		{[]string{"run", "--scenario", "etcd-chaos", "--timeline", "-", "--timeline-filter", "role=leader"}, `--timeline-filter "role=leader": want kind=PATTERNS or host=PATTERNS`},
		{[]string{"run", "--scenario", "etcd-chaos", "--timeline", "-", "--timeline-filter", "kind=raft.*,"}, `bad pattern ""`},
		{[]string{"run", "--scenario", "etcd-chaos", "--timeline", "-", "--timeline-filter", "host=etcd-9"}, `host pattern "etcd-9" matches no host of this run (its hosts: etcd-1, `},
		{[]string{"run", "--scenario", "etcd-chaos", "--artifacts", filepath.Join(notDir, "x")}, "--artifacts " + filepath.Join(notDir, "x") + ": cannot write there"},
		{[]string{"run", "--scenario", "etcd-chaos", "--timeline", filepath.Join(notDir, "x")}, "--timeline: open " + filepath.Join(notDir, "x") + ": not a directory"},
		{[]string{"sweep", "--duration", "0s"}, "--duration must be positive, got 0s"},
		{[]string{"sweep", "--seeds", "1", "--out", filepath.Join(notDir, "x")}, "sweep: --out " + filepath.Join(notDir, "x") + ": cannot write there"},
	}
	for _, c := range cases {
		code, _, stderr := run(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		assert.Contains(t, lines[len(lines)-1], c.want, "%v", c.args)
		assert.Len(t, lines, 1, "one line for %v: %q", c.args, stderr)
	}
}

func TestScenariosList(t *testing.T) {
	code, out, _ := run("scenarios")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.GreaterOrEqual(t, len(lines), 8)
	for _, l := range lines {
		f := strings.Fields(l)
		require.GreaterOrEqual(t, len(f), 2, "name then description: %q", l)
		require.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)+$`, f[0], l)
	}
}

func TestAblationsList(t *testing.T) {
	code, out, _ := run("ablations")
	require.Equal(t, 0, code)
	require.Contains(t, out, "raft-ack-before-fsync")
	require.Contains(t, out, "caught by: raft-safety")
}

// TestRunJSON: a passing run prints one JSON object with the documented
// fields and exits 0; the same seed gives the same trace hash.
func TestRunJSON(t *testing.T) {
	var hashes []string
	for i := 0; i < 2; i++ {
		code, out, stderr := run("run", "--scenario", "etcd-leader-crash", "--members", "3", "--seed", "3", "--duration", "40s", "--json")
		require.Equal(t, 0, code, stderr)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &m))
		for _, k := range []string{"scenario", "members", "seed", "virtual_seconds", "wall_seconds", "events", "trace_hash", "ok", "checks", "metrics"} {
			require.Contains(t, m, k)
		}
		metrics := m["metrics"].(map[string]any)
		for _, k := range []string{"write_availability", "read_availability", "leader_elections", "write_latency_p50_ms", "write_latency_p99_ms"} {
			require.Contains(t, metrics, k)
		}
		hashes = append(hashes, m["trace_hash"].(string))
	}
	require.Equal(t, hashes[0], hashes[1])
}

// TestRunFailurePrintsReplay: a failing run exits 1 and prints the command
// that replays it.
func TestRunFailurePrintsReplay(t *testing.T) {
	dir := t.TempDir()
	sched := filepath.Join(dir, "s.txt")
	// With Txn compares ignored, compare-and-swap writes lose updates.
	require.NoError(t, os.WriteFile(sched, []byte("# no faults\n"), 0o644))
	corpus := filepath.Join(dir, "corpus")
	code, _, stderr := run("run", "--scenario", "etcd-flaky-network", "--members", "3", "--seed", "1", "--ablate", "mvcc-ignore-compare", "--schedule", sched, "--save-failures", corpus)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "replay with: kubesim run --scenario etcd-flaky-network --members 3 --seed 1 --ablate mvcc-ignore-compare --schedule "+sched)
	entry := filepath.Join(corpus, "etcd-flaky-network-m3-s1-mvcc-ignore-compare-schedule.json")
	require.Contains(t, stderr, "wrote corpus entry "+entry)
	data, err := os.ReadFile(entry)
	require.NoError(t, err)
	require.Contains(t, string(data), `"linearizability": false`)
	require.Contains(t, string(data), `"schedule": []`)
}
