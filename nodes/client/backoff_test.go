package client_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// TestBackoffStepsAsWait: Backoff.Step returns the waits
// k8s.io/apimachinery/pkg/util/wait.Backoff.Step returns: Duration grows by
// Factor for Steps steps, reaching Cap ends the steps, and after them the
// last Duration repeats.
func TestBackoffStepsAsWait(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name      string
		b         client.Backoff
		want      []time.Duration
		stepsLeft int
	}{
		{"grows then repeats", client.Backoff{Duration: 10 * ms, Factor: 2, Steps: 3}, []time.Duration{10 * ms, 20 * ms, 40 * ms, 80 * ms, 80 * ms}, 0},
		{"capped", client.Backoff{Duration: 10 * ms, Factor: 2, Steps: 5, Cap: 50 * ms}, []time.Duration{10 * ms, 20 * ms, 40 * ms, 50 * ms, 50 * ms}, 0},
		{"reaching the cap exactly keeps the steps", client.Backoff{Duration: 10 * ms, Factor: 2, Steps: 9, Cap: 40 * ms}, []time.Duration{10 * ms, 20 * ms}, 7},
		{"constant", client.Backoff{Duration: 10 * ms, Steps: 2}, []time.Duration{10 * ms, 10 * ms, 10 * ms}, 0},
		{"no steps", client.Backoff{Duration: 10 * ms, Factor: 2}, []time.Duration{10 * ms, 10 * ms}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			rnd := sim.NewStream(1, "backoff")
			var got []time.Duration
			for range tc.want {
				got = append(got, b.Step(rnd))
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.stepsLeft, b.Steps)
		})
	}
}

// TestJitterAsWait: a jittered wait is d plus a uniform extra in
// [0, factor*d), drawn from the stream; a factor of zero draws nothing
// (wait.Backoff calls Jitter only for Jitter > 0), and Jitter's own
// maxFactor of zero or less means 1.
func TestJitterAsWait(t *testing.T) {
	d := 100 * time.Millisecond
	rnd, twin := sim.NewStream(7, "j"), sim.NewStream(7, "j")
	b := client.Backoff{Duration: d, Jitter: 0.5}
	require.Equal(t, d+time.Duration(twin.Float64()*0.5*float64(d)), b.Step(rnd))

	b = client.Backoff{Duration: d}
	require.Equal(t, d, b.Step(rnd))
	require.Equal(t, twin.Float64(), rnd.Float64(), "no jitter, no draw")

	require.Equal(t, d+time.Duration(twin.Float64()*float64(d)), client.Jitter(d, 0, rnd))
	require.Equal(t, d+time.Duration(twin.Float64()*float64(d)), client.Jitter(d, -2, rnd))
	require.Equal(t, d+time.Duration(twin.Float64()*0.25*float64(d)), client.Jitter(d, 0.25, rnd))
}
