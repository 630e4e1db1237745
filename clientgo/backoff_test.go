package clientgo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
)

// backoffCases are wait.Backoff settings: client-go's retry.DefaultRetry
// and retry.DefaultBackoff (util/retry/util.go), the reflector's
// (tools/cache/reflector.go NewReflectorWithOptions), and edge cases of
// apimachinery's delay(): a cap reached exactly and overshot, factor 0,
// factor 1, no steps.
var backoffCases = []struct {
	name string
	b    wait.Backoff
}{
	{"DefaultRetry", wait.Backoff{Steps: 5, Duration: 10 * time.Millisecond, Factor: 1.0, Jitter: 0.1}},
	{"DefaultBackoff", wait.Backoff{Steps: 4, Duration: 10 * time.Millisecond, Factor: 5.0, Jitter: 0.1}},
	{"reflector", wait.Backoff{Steps: math.MaxInt32, Duration: 800 * time.Millisecond, Factor: 2.0, Jitter: 1.0, Cap: 30 * time.Second}},
	{"cap-exact", wait.Backoff{Steps: 10, Duration: time.Second, Factor: 2, Cap: 8 * time.Second}},
	{"cap-overshot", wait.Backoff{Steps: 10, Duration: time.Second, Factor: 3, Jitter: 0.5, Cap: 10 * time.Second}},
	{"factor-0", wait.Backoff{Steps: 3, Duration: time.Second, Jitter: 0.2}},
	{"no-steps", wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.3}},
}

// sided is one side's value, for checking both sides in a fixed order.
type sided[T any] struct {
	side string
	v    T
}

func simBackoff(b wait.Backoff) client.Backoff {
	return client.Backoff{Duration: b.Duration, Factor: b.Factor, Jitter: b.Jitter, Steps: b.Steps, Cap: b.Cap}
}

// TestBackoffStepMatchesWait: kubesim's client.Backoff.Step against
// apimachinery's wait.Backoff.Step (pkg/util/wait/backoff.go Step, delay).
// With jitter off both must return the same waits and leave the same
// Duration and Steps after each step. With jitter on (client-go draws it
// from the global math/rand, kubesim from a seeded stream) each wait of
// either must lie in [d, d*(1+Jitter)) of the jitter-free wait d.
func TestBackoffStepMatchesWait(t *testing.T) {
	rnd := sim.NewStream(7, "backoff")
	for _, c := range backoffCases {
		t.Run(c.name, func(t *testing.T) {
			noJitter := c.b
			noJitter.Jitter = 0
			real, sb := noJitter, simBackoff(noJitter)
			realJ, sbJ := c.b, simBackoff(c.b)
			for i := 0; i < 15; i++ {
				d := real.Step()
				require.Equal(t, d, sb.Step(rnd), "step %d", i)
				require.Equal(t, real.Duration, sb.Duration, "step %d: next duration", i)
				require.Equal(t, real.Steps, sb.Steps, "step %d: steps left", i)
				hi := d + time.Duration(c.b.Jitter*float64(d))
				for _, w := range []sided[time.Duration]{{"client-go", realJ.Step()}, {"kubesim", sbJ.Step(rnd)}} {
					side, got := w.side, w.v
					if c.b.Jitter == 0 {
						require.Equal(t, d, got, "%s step %d", side, i)
						continue
					}
					require.True(t, got >= d && got < hi, "%s step %d: %s not in [%s, %s)", side, i, got, d, hi)
				}
			}
		})
	}
}

// gapSchedule draws the times between a backoff manager's backoffs:
// mostly short, some exactly at and just past the 2 min reset.
func gapSchedule(seed uint64, n int) []time.Duration {
	rnd := rand.New(rand.NewPCG(seed, 0xb0ff))
	gaps := make([]time.Duration, n)
	for i := range gaps {
		switch p := rnd.IntN(20); {
		case p == 0:
			gaps[i] = cache.BackoffReset
		case p == 1:
			gaps[i] = cache.BackoffReset + time.Nanosecond
		case p == 2:
			gaps[i] = cache.BackoffReset + time.Duration(rnd.Int64N(int64(time.Hour)))
		default:
			gaps[i] = time.Duration(rnd.Int64N(int64(70 * time.Second)))
		}
	}
	return gaps
}

// TestBackoffManagerMatchesWait: kubesim's cache.BackoffManager against
// apimachinery's wait.NewExponentialBackoffManager
// (pkg/util/wait/backoff.go exponentialBackoffManagerImpl.getNextBackoff:
// back to the initial wait when more than the reset duration passed since
// the last backoff began), with the reflector's parameters, on a fake
// clock and kubesim's virtual time stepped by the same seeded gaps. Jitter
// off: the same waits exactly. Jitter 1.0, as the reflector has it: every
// wait of either in [d, 2d) of the jitter-free wait d.
func TestBackoffManagerMatchesWait(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) {
			w := sim.NewWorld(seed)
			h := w.MustAddHost(sim.HostSpec{Name: "c"})
			w.RunFor(0)
			mk := func(jitter float64) (*spyClock, wait.BackoffManager, *cache.BackoffManager) {
				c := newSpyClock(nil)
				return c, wait.NewExponentialBackoffManager(cache.BackoffInitial, cache.BackoffMax, cache.BackoffReset, cache.BackoffFactor, jitter, c),
					cache.NewBackoffManager(cache.BackoffInitial, cache.BackoffMax, cache.BackoffReset, cache.BackoffFactor, jitter, h.Rand("bm"))
			}
			clk, real, sb := mk(0)
			clkJ, realJ, sbJ := mk(cache.BackoffJitter)
			for i, gap := range gapSchedule(seed, 200) {
				clk.Step(gap)
				clkJ.Step(gap)
				w.RunFor(gap)
				// Stop each timer at once: the test only wants its
				// duration, and a fired timer nobody drains would block
				// the fake clock's next Step.
				real.Backoff().Stop()
				realJ.Backoff().Stop()
				d := clk.take()[0]
				require.Equal(t, d, sb.Next(h.Now()), "backoff %d after %s", i, gap)
				for _, w := range []sided[time.Duration]{{"client-go", clkJ.take()[0]}, {"kubesim", sbJ.Next(h.Now())}} {
					side, got := w.side, w.v
					require.True(t, got >= d && got < 2*d, "%s backoff %d: %s not in [%s, %s)", side, i, got, d, 2*d)
				}
			}
		})
	}
}
