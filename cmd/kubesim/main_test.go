package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = realMain(args, &out, &errb)
	return code, out.String(), errb.String()
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
