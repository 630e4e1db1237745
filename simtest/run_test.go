package simtest

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// replayArgs parses the flags of a printed go test command with the
// harness's own flag definitions, as the replayed test binary would.
func replayArgs(t *testing.T, cmd string) settings {
	t.Helper()
	m := regexp.MustCompile(`^go test \S+ -run '[^']+' (.*)$`).FindStringSubmatch(cmd)
	require.NotNil(t, m, "a go test command: %q", cmd)
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	define(fs)
	require.NoError(t, fs.Parse(strings.Fields(m[1])))
	s, err := read(fs)
	require.NoError(t, err)
	return s
}

// TestFailureReplays: a user's spec whose own check fails at some seed
// fails with a report that names the check, writes the trace, timeline
// and report's files, and prints a go test command for this very test;
// run with that command's flags, the harness runs that one world again and
// it fails the same way, with the same trace hash.
func TestFailureReplays(t *testing.T) {
	dir := t.TempDir()
	spec := userSpec("user-node-1-survives", "node-1")
	h := harness{spec: spec, cfg: newConfig([]Option{Seeds(10), ArtifactDir(dir)}), test: t.Name(), pkg: "github.com/kubesim/kubesim/simtest"}
	out, err := h.run()
	require.NoError(t, err)
	f := out.failure
	require.NotNil(t, f, "some seed of ten crashes node-1")
	require.False(t, f.result.OK)
	require.Greater(t, f.result.Seed, uint64(1), "seed 1 passes (and ran twice): the check fails only where node-1 crashes")
	require.Equal(t, f.result, out.results[len(out.results)-1])
	require.Contains(t, f.report, "user-node-1-never-crashes FAIL")
	require.Contains(t, f.report, "replay with:\n  "+f.replay+"\n")
	require.Equal(t, "go test github.com/kubesim/kubesim/simtest -run '^TestFailureReplays$' -seed "+
		itoa(f.result.Seed)+" -members 3", f.replay)

	require.Len(t, f.artifacts.Paths(), 2, "trace and timeline (no linearizability check failed)")
	for _, p := range f.artifacts.Paths() {
		require.Contains(t, f.report, "wrote "+p)
		require.True(t, strings.HasPrefix(p, dir), p)
		info, err := os.Stat(p)
		require.NoError(t, err)
		require.Positive(t, info.Size())
	}

	replay := h
	replay.flags = replayArgs(t, f.replay)
	again, err := replay.run()
	require.NoError(t, err)
	require.NotNil(t, again.failure)
	require.Len(t, again.results, 1, "the replay runs the one world")
	require.Equal(t, f.result.TraceHash, again.failure.result.TraceHash)
	require.Equal(t, f.result.Checks, again.failure.result.Checks)
	require.Equal(t, f.replay, again.failure.replay)
}

// TestFlagsOverrideOptions: -seed runs one seed, -members one count,
// -seeds the number of seeds, and -ablate adds an ablation, which the
// replay command carries.
func TestFlagsOverrideOptions(t *testing.T) {
	h := harness{spec: userSpec("user-flags", ""), cfg: newConfig([]Option{Seeds(4), Members(3, 5), Ablate("a")})}
	members, seeds, err := h.plan()
	require.NoError(t, err)
	require.Equal(t, []int{3, 5}, members)
	require.Equal(t, []uint64{1, 2, 3, 4}, seeds)

	h.flags = settings{members: 4, seeds: 2}
	members, seeds, _ = h.plan()
	require.Equal(t, []int{4}, members)
	require.Equal(t, []uint64{1, 2}, seeds)

	h.flags = settings{seed: 17, seeds: 2, ablate: []string{"b"}}
	members, seeds, _ = h.plan()
	require.Equal(t, []int{3, 5}, members)
	require.Equal(t, []uint64{17}, seeds)
	require.Equal(t, []string{"a", "b"}, h.options(3, 17).Ablations)
	r := scenarios.Result{Seed: 17, Members: 3}
	require.Equal(t, "go test example.com/op -run '^TestOp$' -seed 17 -members 3 -ablate b",
		replayCommand("example.com/op", "TestOp", r, h.flags.ablate, nil), "the test's own ablations come from its options")
	require.Equal(t, "go test example.com/op -run '^TestOp$' -seed 17 -members 3 -ablate b -broken -v",
		replayCommand("example.com/op", "TestOp", r, h.flags.ablate, []string{"-broken", "-v"}), "the test's own flags (ReplayFlags) come last")

	h.cfg.seeds = 0
	h.flags = settings{}
	_, _, err = h.plan()
	require.ErrorContains(t, err, "run at least one seed")
}

// TestReadFlags: the flags are read as their values print, whether
// simtest defined them or a package before it did, and a value that is
// not a number is an error naming the flag.
func TestReadFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("seed", "", "another package's -seed")
	define(fs)
	require.NoError(t, fs.Parse([]string{"-seed", "9", "-members", "5", "-ablate", "a", "-ablate", "b"}))
	s, err := read(fs)
	require.NoError(t, err)
	require.Equal(t, settings{seed: 9, members: 5, ablate: []string{"a", "b"}}, s)

	require.NoError(t, fs.Set("seed", "nine"))
	_, err = read(fs)
	require.ErrorContains(t, err, "simtest: flag -seed=nine")
	require.NotNil(t, flag.Lookup("seeds"), "this test binary got the flags")
}

// TestReplayCommand: the command selects exactly the test, subtests
// included; an unknown package is run as "." in its directory; a
// benchmark is selected with -bench.
func TestReplayCommand(t *testing.T) {
	r := scenarios.Result{Seed: 5, Members: 4}
	for _, tc := range []struct{ pkg, test, want string }{
		{"example.com/op", "TestOp", "go test example.com/op -run '^TestOp$' -seed 5 -members 4"},
		{"example.com/op", "TestOp/leader_crash", "go test example.com/op -run '^TestOp$/^leader_crash$' -seed 5 -members 4"},
		{"example.com/op", "TestOp/a.b", `go test example.com/op -run '^TestOp$/^a\.b$' -seed 5 -members 4`},
		{"", "TestOp", "go test . -run '^TestOp$' -seed 5 -members 4   # in the test's package directory"},
		{"example.com/op", "BenchmarkOp", "go test example.com/op -run '^$' -bench '^BenchmarkOp$' -seed 5 -members 4"},
	} {
		require.Equal(t, tc.want, replayCommand(tc.pkg, tc.test, r, nil, nil))
	}
}

// TestTestPackage: the test's import path is found from the stack, in the
// test and in a subtest's closure; symbols split at the package, escaped
// dots and _test included.
func TestTestPackage(t *testing.T) {
	pkg, ok := testPackage(t.Name())
	require.True(t, ok)
	require.Equal(t, "github.com/kubesim/kubesim/simtest", pkg)
	t.Run("sub test", func(t *testing.T) {
		pkg, ok := testPackage(t.Name())
		require.True(t, ok)
		require.Equal(t, "github.com/kubesim/kubesim/simtest", pkg)
	})
	_, ok = testPackage("TestNoSuchTest")
	require.False(t, ok)
	for _, tc := range []struct{ sym, pkg, fn string }{
		{"example.com/op.TestX", "example.com/op", "TestX"},
		{"example.com/op_test.TestX.func1", "example.com/op", "TestX.func1"},
		{"gopkg.in/yaml%2ev3.TestX", "gopkg.in/yaml.v3", "TestX"},
		{"main.TestX", "main", "TestX"},
	} {
		pkg, fn, ok := splitFunc(tc.sym)
		require.True(t, ok)
		require.Equal(t, tc.pkg, pkg, tc.sym)
		require.Equal(t, tc.fn, fn, tc.sym)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
