package widgetoperator

import (
	"flag"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/simtest"
)

// TestBrokenOperatorIsCaught: the broken controller (a failed sync is
// dropped, not requeued) leaves a Widget unreconciled in some world of the
// first seeds. simtest.ExpectFailure finds that world, checks that it runs
// again to the same trace, and returns its report, whose replay command
// carries -broken. The replay itself, the test with -seed set as the
// command sets it, fails at the same world; and the correct controller
// passes that world: the bug, not the faults, broke the invariant.
func TestBrokenOperatorIsCaught(t *testing.T) {
	f := simtest.ExpectFailure(t, brokenSpec, simtest.Seeds(30), simtest.SkipSameSeedTwice(),
		simtest.ReplayFlags("-broken"), simtest.ArtifactDir(t.TempDir()))
	require.Equal(t, "widget-replicas", f.Result.Failed()[0].Name, "the invariant, not another check, catches the bug")
	require.Contains(t, f.Replay, fmt.Sprintf("-seed %d -members 3 -broken", f.Result.Seed))
	require.NotEmpty(t, f.Artifacts.Paths(), "the trace and timeline are written")

	setFlag(t, "seed", fmt.Sprint(f.Result.Seed))
	again := simtest.ExpectFailure(t, brokenSpec, simtest.ArtifactDir(t.TempDir()))
	require.Equal(t, f.Result.TraceHash, again.Result.TraceHash, "the replay is the same world")

	fixed := simtest.Run(t, operatorSpec, simtest.SkipSameSeedTwice())
	require.True(t, fixed[0].OK)
}

// setFlag sets a flag of the test binary for the rest of the test.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	require.NotNil(t, f, "simtest defines -%s", name)
	old := f.Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { _ = flag.Set(name, old) })
}
