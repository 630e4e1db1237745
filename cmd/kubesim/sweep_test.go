package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// TestSweepGridRefusedUpFront: a grid that cannot be meant is refused with
// status 2 and one line before anything runs or is written, by the flags'
// own checks (TestHostileInput) or by sweep.Grid.Validate, which catches
// what they leave (these cases).
func TestSweepGridRefusedUpFront(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--members", "1,2,3,4,5,6,7", "--seeds", "9223372036854775807"}, "sweep: the grid has more than 2^64 runs"},
		{[]string{"--members", "3,4,5,6,7", "--seeds", "300000000000"}, "sweep: the grid has 1500000000000 runs"},
		{[]string{"--faults", "crash-restart", "--faults", "crash-restart:mttf=1m"}, "sweep: --faults crash-restart:mttf=1m0s,mttr=20s is given twice"},
		{[]string{"--ablate", "raft-ack-before-fsync", "--ablate", "raft-ack-before-fsync"}, "sweep: --ablate raft-ack-before-fsync is given twice"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := run(append(append([]string{"sweep"}, c.args...), "--out", out)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "nothing written for %v", c.args)
	}
}

// TestSweepDefaultsToTheScenarioLength: without --duration a sweep runs
// the scenario's own length, and says so.
func TestSweepDefaultsToTheScenarioLength(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run("sweep", "--scenario", "etcd-leader-crash", "--members", "3", "--seeds", "1", "--out", out)
	require.Equal(t, 0, code, stderr)
	spec, err := scenarios.Lookup("etcd-leader-crash")
	require.NoError(t, err)
	assert.Contains(t, stderr, "sweep: each run lasts "+spec.Duration.String()+" (virtual), etcd-leader-crash's own length")
	data, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	require.NoError(t, err)
	var r scenarios.Result
	require.NoError(t, json.Unmarshal(data, &r))
	assert.Equal(t, spec.Duration, r.Duration)
}
