package reports

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/scenarios"
)

var recoverySweep = flag.Bool("recovery-sweep", false, "TestRecoverySweep: run etcd-disaster-recovery with backups every 10, 20, 40 and 60 s over 20 seeds and judge RecoveryClaims")

// recoveryRun is a run with the given measures.
func recoveryRun(ok bool, lost, window, rto, proc float64) scenarios.Result {
	return scenarios.Result{OK: ok, Metrics: map[string]float64{"rpo_writes_lost": lost, "rpo_s": window, "rto_s": rto, "rto_procedure_s": proc}}
}

// TestRecoveryClaims: hand-built groups where a longer interval loses
// more, within its bound, and the procedure does not change, support every
// claim; a window beyond the interval, a longer interval that loses less,
// and a procedure that slows down contradict them.
func TestRecoveryClaims(t *testing.T) {
	runs := func(window, proc float64) []scenarios.Result {
		var out []scenarios.Result
		for i := range 10 {
			w := window + 0.1*float64(i%3)
			out = append(out, recoveryRun(true, 2*w, w, 30+w, proc+0.01*float64(i%2)))
		}
		return out
	}
	good := AggregateRecovery(map[time.Duration][]scenarios.Result{10 * time.Second: runs(5, 7), 40 * time.Second: runs(20, 7)})
	require.Len(t, good, 2)
	require.Equal(t, 10*time.Second, good[0].Interval)
	require.InDelta(t, 10.2, good[0].WritesLost.Mean, 0.1)
	claims := RecoveryClaims(good)
	require.Len(t, claims, 4)
	for _, c := range claims {
		require.Equal(t, Supported, c.Outcome, "%s: %s", c.Text, c.Verdict)
	}
	require.Contains(t, RecoveryMarkdown(good), "| 40s | 10 (0) |")

	tests := []struct {
		name   string
		groups map[time.Duration][]scenarios.Result
		claim  string
	}{
		{"a window beyond the interval", map[time.Duration][]scenarios.Result{10 * time.Second: runs(12, 7)}, "no recovery loses more than 11s"},
		{"a longer interval loses less", map[time.Duration][]scenarios.Result{10 * time.Second: runs(8, 7), 40 * time.Second: runs(3, 7)}, "loses more than one every 10s"},
		{"the procedure slows down", map[time.Duration][]scenarios.Result{10 * time.Second: runs(5, 7), 40 * time.Second: runs(20, 12)}, "takes as long"},
	}
	for _, tt := range tests {
		found := false
		for _, c := range RecoveryClaims(AggregateRecovery(tt.groups)) {
			if c.Outcome == Contradicted {
				require.Contains(t, c.Text, tt.claim, tt.name)
				found = true
			}
		}
		require.True(t, found, tt.name)
	}
}

// TestRecoverySweep (-recovery-sweep) runs the disaster recovery with
// backups every 10, 20, 40 and 60 s, 20 seeds each with 3 members, and
// requires every run to pass and every claim of RecoveryClaims to be
// supported; it prints the table.
func TestRecoverySweep(t *testing.T) {
	if !*recoverySweep {
		t.Skip("run with -recovery-sweep")
	}
	runs := map[time.Duration][]scenarios.Result{}
	for _, d := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 60 * time.Second} {
		spec := catalogue.DisasterRecoveryEvery(d)
		for seed := uint64(1); seed <= 20; seed++ {
			p, err := scenarios.PrepareSpec(spec, scenarios.Options{Members: 3, Seed: seed})
			require.NoError(t, err)
			res, err := p.Run()
			require.NoError(t, err)
			require.True(t, res.OK, "%s seed %d: %v", spec.Name, seed, res.Failed())
			runs[d] = append(runs[d], res)
		}
	}
	gs := AggregateRecovery(runs)
	fmt.Print(RecoveryMarkdown(gs))
	for _, c := range RecoveryClaims(gs) {
		fmt.Printf("%s: %s (%s)\n", c.Outcome, c.Text, c.Verdict)
		require.Equal(t, Supported, c.Outcome, "%s: %s", c.Text, c.Verdict)
	}
}
