package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestParsePattern: a probe pattern is windows of F and S; anything else
// invalidates the whole annotation.
func TestParsePattern(t *testing.T) {
	tests := []struct {
		in   string
		want []patternWindow
	}{
		{"10s-20s=FFS", []patternWindow{{sim.Time(10 * time.Second), sim.Time(20 * time.Second), []bool{false, false, true}}}},
		{"0s-5s=S,30s-1m=F", []patternWindow{{0, sim.Time(5 * time.Second), []bool{true}}, {sim.Time(30 * time.Second), sim.Time(time.Minute), []bool{false}}}},
		{"", nil}, {"10s-20s=", nil}, {"10s-20s=FX", nil}, {"20s-10s=F", nil}, {"10s-20s=F,oops", nil}, {"10s=F", nil},
	}
	for _, tc := range tests {
		got, ok := parsePattern(tc.in)
		require.Equal(t, tc.want != nil, ok, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

// until keeps the events before t.
func (r *recorder) until(t sim.Time) *recorder {
	out := &recorder{}
	for _, e := range r.events {
		if e.at < t {
			out.events = append(out.events, e)
		}
	}
	return out
}

// probeResults lists the raw results the kubelet traced for a pod's probe
// of kind, F or S each.
func (r *recorder) probeResults(pod, kind string) string {
	var out []byte
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.ProbeResult); ok && d.Pod == pod && d.Probe == kind {
			c := byte('F')
			if d.Success {
				c = 'S'
			}
			out = append(out, c)
		}
	}
	return string(out)
}

// TestLivenessPattern: the liveness endpoint answers by the pattern, per
// container run; failureThreshold failures in a row, and only they, kill
// the container (a success resets the count), and the container killed is
// unhealthy by its own word. With the probe-counts-total-failures
// ablation the count is never reset.
func TestLivenessPattern(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		abl     ablation.Set
		kills   int // in the first run
		results string
	}{
		{"two failures in a row never kill", "0s-1h=FFS", ablation.Of(), 0, "FFSFFSFFSFFSFF"},
		{"the third failure in a row kills", "0s-1h=FFFS", ablation.Of(), 1, "FFF"},
		{"the ablation counts failures across successes", "0s-1h=FFS", ablation.Of(ablation.ProbeCountsTotalFailures), 1, "FFSF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 3, 1, Config{Ablations: tc.abl})
			e.create(newPod("p", map[string]string{AnnotationStartLatency: "1s", AnnotationLivenessPattern: tc.pattern},
				withLiveness(model.Probe{PeriodSeconds: 1, FailureThreshold: 3})))
			e.runUntil(10*time.Second, "running", func() bool { s, _ := e.rec.starts("default/p"); return len(s) == 1 })
			_, startAt := e.rec.starts("default/p")
			e.Run(startAt[0].Add(13500 * time.Millisecond).Sub(e.W.Now()))
			stops, stopAt := e.rec.stops("default/p")
			got := e.rec.probeResults("default/p", spoketrace.ProbeLiveness)
			if tc.kills == 0 {
				require.Empty(t, stops)
				require.Equal(t, tc.results, got[:len(tc.results)])
				return
			}
			// The first run: killed after its results, none probed after
			// the kill until the container runs again.
			require.NotEmpty(t, stops)
			require.Equal(t, spoketrace.StopLiveness, stops[0].Reason)
			require.False(t, stops[0].Healthy, "its liveness endpoint said it was unhealthy")
			require.Equal(t, tc.results, e.rec.until(stopAt[0]).probeResults("default/p", spoketrace.ProbeLiveness))
		})
	}
}

// TestReadinessPattern: readiness leaves after failureThreshold failures
// in a row and comes back after successThreshold successes in a row.
func TestReadinessPattern(t *testing.T) {
	e := newEnv(t, 4, 1, Config{})
	e.create(newPod("p", map[string]string{AnnotationStartLatency: "1s", AnnotationReadinessPattern: "0s-1h=SSFSFFSFSS"},
		withReadiness(model.Probe{PeriodSeconds: 1, SuccessThreshold: 2, FailureThreshold: 2})))
	e.runUntil(10*time.Second, "running", func() bool { s, _ := e.rec.starts("default/p"); return len(s) == 1 })
	_, startAt := e.rec.starts("default/p")
	e.Run(startAt[0].Add(9500 * time.Millisecond).Sub(e.W.Now()))
	require.Equal(t, "SSFSFFSFSS", e.rec.probeResults("default/p", spoketrace.ProbeReadiness))
	// Ready after SS; the lone F changes nothing; out after FF; the lone S
	// and F change nothing; back after SS.
	require.Equal(t, []bool{true, false, true}, e.rec.readiness("default/p"))
	stops, _ := e.rec.stops("default/p")
	require.Empty(t, stops)
}
