package clientgo

import (
	"flag"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"k8s.io/apimachinery/pkg/util/wait"
)

// runSkipped runs the cases that show an undocumented divergence, so that
// they fail and show it: go test -run TestReflector -skipped -v .
var runSkipped = flag.Bool("skipped", false, "run the scenarios skipped for an undocumented divergence")

// backoffBases returns the jitter-free waits of the reflector's backoff
// manager (wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 0) in
// place of client-go's jitter 1.0) for backoffs begun at the given times
// of the real side's fake clock.
func backoffBases(at []time.Time) []time.Duration {
	clk := newSpyClock(nil)
	m := wait.NewExponentialBackoffManager(800*time.Millisecond, 30*time.Second, 2*time.Minute, 2.0, 0, clk)
	var bases []time.Duration
	for _, t := range at {
		clk.SetTime(t)
		m.Backoff().Stop()
		bases = append(bases, clk.take()[0])
	}
	return bases
}

// TestReflectorMatchesClientGo runs every scenario through client-go's
// Reflector and kubesim's, and requires the same record: the
// resourceVersion of every list and watch, and where the reflector backed
// off. Backoff waits are jittered on both sides (jitter 1.0, client-go from
// the global math/rand): each must lie in [d, 2d) of the jitter-free wait
// d of the same backoff.
func TestReflectorMatchesClientGo(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.skip != "" && !*runSkipped {
				t.Skip(sc.skip)
			}
			real := runReal(t, sc)
			sim := runSim(t, sc, ablation.Set{})
			require.Equal(t, sc.want, real.log, "client-go's record")
			require.Equal(t, real.log, sim.log, "kubesim's record against client-go's")
			bases := backoffBases(real.at)
			if sc.bases != nil {
				require.Equal(t, sc.bases, bases, "jitter-free backoffs")
			}
			t.Logf("backoffs: client-go %v, kubesim %v", real.backoffs, sim.backoffs)
			for _, w := range []sided[[]time.Duration]{{"client-go", real.backoffs}, {"kubesim", sim.backoffs}} {
				side, waits := w.side, w.v
				require.Len(t, waits, len(bases), side)
				for i, d := range waits {
					require.True(t, d >= bases[i] && d < 2*bases[i], "%s backoff %d: %s not in [%s, %s)", side, i, d, bases[i], 2*bases[i])
				}
			}
		})
	}
}

// TestReflectorDifferentialCatchesAblations: the differential can fail.
// With each of kubesim's reflector ablations on (see nodes/client/cache's
// package doc), some scenario's record differs from client-go's: relisting
// from "0" instead of the last resourceVersion, and re-watching a cleanly
// closed stream from "" instead of resuming.
func TestReflectorDifferentialCatchesAblations(t *testing.T) {
	for _, a := range []ablation.Switch{ablation.RelistRV0, ablation.NoResume} {
		t.Run(a.String(), func(t *testing.T) {
			var caught []string
			for _, sc := range scenarios {
				if sc.skip != "" {
					continue
				}
				if real, sim := runReal(t, sc), runSim(t, sc, ablation.Of(a)); !reflect.DeepEqual(real.log, sim.log) {
					caught = append(caught, sc.name)
				}
			}
			require.NotEmpty(t, caught, "no scenario tells %s from client-go", a)
			t.Logf("caught by %q", caught)
		})
	}
}
