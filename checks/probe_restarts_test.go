package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/spoketrace"
)

func TestProbeRestarts(t *testing.T) {
	cases := []struct {
		name             string
		evs              []sev
		ok               bool
		want             string
		probes, healthys float64
		exits            float64
	}{
		{"hung containers killed by liveness", []sev{stop(1, "node-1", "a", spoketrace.StopLiveness, false),
			stop(2, "node-2", "b", spoketrace.StopLiveness, false)}, true, "2 liveness kill(s)", 2, 0, 0},
		{"exits and deletions are not probe restarts", []sev{stop(1, "node-1", "a", spoketrace.StopExited, true),
			stop(2, "node-1", "b", spoketrace.StopDeleted, true)}, true, "0 liveness kill(s)", 0, 0, 0},
		{"a busy pod leaves rotation and comes back, twice", []sev{ready(1, "node-1", "a", false), ready(2, "node-1", "a", true),
			ready(3, "node-1", "a", false), ready(4, "node-1", "a", true), ready(5, "node-1", "a", false), ready(6, "node-1", "a", true)},
			true, "0 liveness kill(s)", 0, 0, 2},
		{"a readiness failure restarted a container", []sev{stop(1, "node-1", "a", spoketrace.StopReadiness, false)},
			false, "readiness must never restart", 1, 0, 0},
		{"liveness killed a healthy, busy container", []sev{stop(1, "node-1", "a", spoketrace.StopLiveness, false),
			stop(2, "node-1", "a", spoketrace.StopLiveness, true)}, false, "but the container was healthy", 2, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewProbeRestarts()
			r := feedSpoke(c, tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			require.Equal(t, map[string]float64{"probe_restarts": tc.probes, "healthy_restarts": tc.healthys, "rotation_exits": tc.exits}, c.Measures())

			m := NewProbeRestarts(ProbeRestartsOptions{MeasureOnly: true})
			r = feedSpoke(m, tc.evs...)
			require.True(t, r.OK, "measure only never fails: %s", r)
			require.Equal(t, c.Measures(), m.Measures())

			x := NewProbeRestarts(ProbeRestartsOptions{Exempt: func(pod string) bool { return pod == "default/a" }})
			r = feedSpoke(x, tc.evs...)
			require.True(t, r.OK, "pod a is exempt: %s", r)
			require.Equal(t, c.Measures(), x.Measures())
		})
	}
}

// TestProbeRestartsJudgesPodsNotExempt: an exemption covers the pods it
// names and no other.
func TestProbeRestartsJudgesPodsNotExempt(t *testing.T) {
	x := NewProbeRestarts(ProbeRestartsOptions{Exempt: func(pod string) bool { return pod == "default/tight" }})
	r := feedSpoke(x, stop(1, "node-1", "tight", spoketrace.StopLiveness, true), stop(2, "node-1", "ready", spoketrace.StopReadiness, true))
	require.False(t, r.OK)
	require.Contains(t, r.String(), "pod default/ready")
	require.NotContains(t, r.String(), "pod default/tight")
}
