package scenarios_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

var updateHashes = flag.Bool("update-trace-hashes", false, "TestTraceHashesPinned: rewrite testdata/tracehashes.txt from this build")

const traceHashesFile = "testdata/tracehashes.txt"

// TestTraceHashesPinned runs every catalogue scenario at two seeds (seed 1
// with its first member count, twice, seed 2 with its last) and compares
// the trace hash and event count with the ones pinned in
// testdata/tracehashes.txt. A change that alters what
// a run does, or only how its events print, changes the fingerprint: a
// refactoring must leave it alone, and a change of behaviour rewrites the
// file (-update-trace-hashes) and says why in its commit.
func TestTraceHashesPinned(t *testing.T) {
	var got []string
	for _, spec := range scenarios.Catalogue() {
		for i, members := range []int{spec.Members[0], spec.Members[len(spec.Members)-1]} {
			seed := uint64(i + 1)
			res, err := scenarios.Run(scenarios.Options{Scenario: spec.Name, Members: members, Seed: seed})
			require.NoError(t, err)
			if seed == 1 {
				// The same world again in this process: nothing leaks
				// from one world into the next.
				again, err := scenarios.Run(scenarios.Options{Scenario: spec.Name, Members: members, Seed: seed})
				require.NoError(t, err)
				require.Equal(t, res.TraceHash, again.TraceHash, "%s seed 1 run twice in one process", spec.Name)
			}
			got = append(got, fmt.Sprintf("%s members=%d seed=%d hash=%s events=%d", spec.Name, members, seed, res.TraceHash, res.Events))
		}
	}
	if *updateHashes {
		require.NoError(t, os.WriteFile(traceHashesFile, []byte(strings.Join(got, "\n")+"\n"), 0o644))
		return
	}
	f, err := os.Open(traceHashesFile)
	require.NoError(t, err, "run with -update-trace-hashes to create it")
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want[runOf(sc.Text())] = sc.Text()
	}
	require.NoError(t, sc.Err())
	for _, line := range got {
		require.Equal(t, want[runOf(line)], line, "trace of %s changed; if the behaviour change is meant, rerun with -update-trace-hashes and say why", runOf(line))
	}
	require.Len(t, want, len(got), "%s names scenarios the catalogue does not have", traceHashesFile)
}

// runOf is the part of a pinned line that names the run: the scenario,
// member count and seed.
func runOf(line string) string {
	i := strings.Index(line, " hash=")
	if i < 0 {
		return line
	}
	return line[:i]
}
