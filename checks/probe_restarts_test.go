package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/spoketrace"
)

func TestProbeRestarts(t *testing.T) {
	cases := []struct {
		name             string
		evs              []sev
		ok               bool
		want             string
		probes, healthys float64
	}{
		{"hung containers killed by liveness", []sev{stop(1, "node-1", "a", spoketrace.StopLiveness, false),
			stop(2, "node-2", "b", spoketrace.StopLiveness, false)}, true, "2 liveness kill(s)", 2, 0},
		{"exits and deletions are not probe restarts", []sev{stop(1, "node-1", "a", spoketrace.StopExited, true),
			stop(2, "node-1", "b", spoketrace.StopDeleted, true)}, true, "0 liveness kill(s)", 0, 0},
		{"a readiness failure restarted a container", []sev{stop(1, "node-1", "a", spoketrace.StopReadiness, false)},
			false, "readiness must never restart", 1, 0},
		{"liveness killed a healthy, busy container", []sev{stop(1, "node-1", "a", spoketrace.StopLiveness, false),
			stop(2, "node-1", "a", spoketrace.StopLiveness, true)}, false, "but the container was healthy", 2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewProbeRestarts()
			r := feedSpoke(c, tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			require.Equal(t, map[string]float64{"probe_restarts": tc.probes, "healthy_restarts": tc.healthys}, c.Measures())

			m := NewProbeRestarts(ProbeRestartsOptions{MeasureOnly: true})
			r = feedSpoke(m, tc.evs...)
			require.True(t, r.OK, "measure only never fails: %s", r)
			require.Equal(t, c.Measures(), m.Measures())
		})
	}
}
