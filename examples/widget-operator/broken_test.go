package widgetoperator

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/simtest"
)

// failureRecorder is a testing.TB whose Fatal records the failure instead
// of failing the test, so that a test can assert that simtest.Run fails.
type failureRecorder struct {
	testing.TB
	fatal []string
}

func (r *failureRecorder) Fatal(args ...any) { r.fatal = append(r.fatal, fmt.Sprint(args...)) }
func (r *failureRecorder) Log(args ...any)   { r.TB.Log(args...) }

// runExpectingFailure runs spec through simtest.Run with seeds and
// returns the failing world's result and the report Run printed.
func runExpectingFailure(t *testing.T, spec scenarios.Spec, opts ...simtest.Option) (scenarios.Result, string) {
	t.Helper()
	rec := &failureRecorder{TB: t}
	results := simtest.Run(rec, spec, append(opts, simtest.ArtifactDir(t.TempDir()))...)
	require.Len(t, rec.fatal, 1, "simtest.Run must fail exactly once")
	require.NotEmpty(t, results)
	return results[len(results)-1], rec.fatal[0]
}

// TestBrokenOperatorIsCaught: the broken controller (a failed sync is
// dropped, not requeued) leaves a Widget unreconciled in some world of the
// first seeds; Run fails there with widget-replicas, prints the seed's
// replay command and writes the trace; and the replay, the same test with
// -seed set as the command sets it, fails at the same world with the same
// trace hash.
func TestBrokenOperatorIsCaught(t *testing.T) {
	res, report := runExpectingFailure(t, brokenSpec, simtest.Seeds(10), simtest.SkipSameSeedTwice())
	t.Logf("caught at seed %d:\n%s", res.Seed, report)
	require.False(t, res.OK)
	require.Equal(t, "widget-replicas", res.Failed()[0].Name, "the invariant, not another check, catches the bug")
	require.Contains(t, report, fmt.Sprintf("-seed %d", res.Seed))
	require.Contains(t, report, ".trace.jsonl")

	// The replay: what `go test . -run TestWidgetOperator -broken -seed N` does.
	setFlag(t, "seed", fmt.Sprint(res.Seed))
	again, report2 := runExpectingFailure(t, brokenSpec)
	require.Equal(t, res.Seed, again.Seed)
	require.Equal(t, res.TraceHash, again.TraceHash, "the replay is the same world")
	require.Equal(t, res.Events, again.Events)
	require.True(t, strings.Contains(report2, "widget-replicas"))

	// The same world with the correct controller passes: the bug, not the
	// faults, broke the invariant.
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
