package simtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// leakAt is when the flaky spec of TestExpectFailure crashes a node.
const leakAt = 41*time.Second + 7*time.Millisecond

// crashedAt fails when host crashes at exactly at.
type crashedAt struct {
	w    *sim.World
	host string
	at   sim.Time
	rec  checks.Recorder
}

func (c *crashedAt) Name() string { return "crashed-at" }

func (c *crashedAt) Observe(e *sim.Event) {
	if e.At == c.at && e.Kind == sim.KindFault && sim.FaultKind(e.Name).CrashesHost() && c.w.HostName(e.Host) == c.host {
		c.rec.Add(e, "%s crashed", c.host)
	}
}

func (c *crashedAt) Finish() checks.Result { return c.rec.Result(c.Name(), "no crash then") }

// TestExpectFailure: a spec whose check fails at some seed is an expected
// failure: the failing world, its report and its replay command (with the
// test's own flags from ReplayFlags) come back, and the world ran again to
// the same trace. A spec that always passes, or one that fails only its
// same-seed-twice check, is not the failure a test of a planted bug
// expects: each is an error that says which.
func TestExpectFailure(t *testing.T) {
	dir := t.TempDir()
	h := harness{spec: userSpec("user-expect", "node-1"), test: "TestOp", pkg: "example.com/op",
		cfg: newConfig([]Option{Seeds(10), ArtifactDir(dir), ReplayFlags("-broken")})}
	f, err := h.expectFailure()
	require.NoError(t, err)
	require.False(t, f.Result.OK)
	require.Equal(t, "user-node-1-never-crashes", f.Result.Failed()[0].Name)
	require.Equal(t, "go test example.com/op -run '^TestOp$' -seed "+itoa(f.Result.Seed)+" -members 3 -broken", f.Replay)
	require.Contains(t, f.Report, "replay with:\n  "+f.Replay+"\n")
	require.NotEmpty(t, f.Artifacts.Paths())

	pass := harness{spec: userSpec("user-expect-pass", ""), test: "TestOp", cfg: newConfig([]Option{Seeds(1), SkipSameSeedTwice()})}
	_, err = pass.expectFailure()
	require.ErrorContains(t, err, "expected a failure, but every world passed")

	leakyRuns = 0
	leaky := harness{spec: leakySpec(), test: "TestOp", cfg: newConfig([]Option{Seeds(1), ArtifactDir(dir)})}
	_, err = leaky.expectFailure()
	require.ErrorContains(t, err, "same-seed-twice")

	// A failure that its replay does not reproduce: the world crashes
	// node-2 in the second world built only, and a check fails on a crash
	// at that time.
	builds := 0
	spec := userSpec("user-expect-flaky", "")
	spec.Build = func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
		if builds++; builds == 2 {
			c.World.At(sim.Time(leakAt), "leak", func() { _ = Crash(c.World, "node-2", 5*time.Second) })
		}
		return []checks.Check{&crashedAt{w: c.World, host: "node-2", at: sim.Time(leakAt)}}, nil
	}
	flaky := harness{spec: spec, test: "TestOp", cfg: newConfig([]Option{Seeds(2), SkipSameSeedTwice(), ArtifactDir(dir)})}
	_, err = flaky.expectFailure()
	require.ErrorContains(t, err, "the failing world, run again, is another world")
}
