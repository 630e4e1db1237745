package simtest

import (
	"fmt"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// Failure is a world in which a check failed, as ExpectFailure found it.
type Failure struct {
	// Result is the failing world's: its seed, members, checks and trace
	// hash.
	Result scenarios.Result
	// Report is what Run prints for it: the failed checks with their first
	// offending events, the replay command and the files written.
	Report string
	// Replay is the go test command that replays the world.
	Replay string
	// Artifacts are the trace, timeline and visualizations written.
	Artifacts scenarios.Artifacts
}

// ExpectFailure runs spec as Run does (the same seeds, members, options and
// flags) but expects a world to fail: for a test that proves its check
// catches a bug planted on purpose, a broken variant of a controller or an
// ablation. It fails t if every world passes, if the worlds differ only in
// that one seed gave two traces (a determinism leak, not a caught bug),
// or if the failing world, run a second time as its replay command would
// run it, gives another trace or verdict. It logs the report and returns
// the failure.
func ExpectFailure(t testing.TB, spec scenarios.Spec, opts ...Option) Failure {
	t.Helper()
	f, err := newHarness(t, spec, opts).expectFailure()
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + f.Report)
	return f
}

// expectFailure runs the plan, expecting a failing world, and replays it.
func (h harness) expectFailure() (Failure, error) {
	out, err := h.run()
	if err != nil {
		return Failure{}, err
	}
	f := out.failure
	switch {
	case f == nil:
		return Failure{}, fmt.Errorf("simtest: expected a failure, but every world passed: %s", out.logs[len(out.logs)-1])
	case f.sameSeed:
		return Failure{}, fmt.Errorf("simtest: expected a check to fail, but the run failed its same-seed-twice check:\n%s", f.report)
	}
	again, err := h.runOne(f.opts)
	if err != nil {
		return Failure{}, err
	}
	if again.TraceHash != f.result.TraceHash || again.Events != f.result.Events || again.OK {
		return Failure{}, fmt.Errorf("simtest: the failing world, run again, is another world (trace hash %s, %d events, ok=%v; first %s, %d events):\n%s",
			again.TraceHash, again.Events, again.OK, f.result.TraceHash, f.result.Events, f.report)
	}
	return Failure{Result: f.result, Report: f.report, Replay: f.replay, Artifacts: f.artifacts}, nil
}
