package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestParseApp: annotations set the application's behaviour; values that
// do not parse are ignored (the default holds) without a panic.
func TestParseApp(t *testing.T) {
	tests := []struct {
		name  string
		ann   map[string]string
		check func(t *testing.T, a appSpec)
	}{
		{"defaults", nil, func(t *testing.T, a appSpec) {
			require.GreaterOrEqual(t, a.startLatency, time.Second)
			require.Less(t, a.startLatency, 2*time.Second)
			require.False(t, a.exits)
			require.False(t, a.hangs)
			require.Equal(t, time.Second, a.shutdown)
			require.Equal(t, AppAnswerTime, a.answerTime(sim.Time(time.Minute)))
		}},
		{"all-set", map[string]string{AnnotationStartLatency: "250ms", AnnotationExitAfter: "1m", AnnotationExitCode: "42",
			AnnotationHangAfter: "30s", AnnotationShutdown: "0s", AnnotationLoad: "60s-180s=3s,300s-320s=5s",
			AnnotationServeAfterSigterm: "3s"}, func(t *testing.T, a appSpec) {
			require.Equal(t, 3*time.Second, a.serveAfterSigterm)
			require.Equal(t, 250*time.Millisecond, a.startLatency)
			require.True(t, a.exits)
			require.Equal(t, time.Minute, a.exitAfter)
			require.Equal(t, 42, a.exitCode)
			require.True(t, a.hangs)
			require.Equal(t, 30*time.Second, a.hangAfter)
			require.Equal(t, time.Duration(0), a.shutdown)
			for _, c := range []struct{ at, want time.Duration }{
				{59 * time.Second, AppAnswerTime}, {60 * time.Second, 3 * time.Second}, {179 * time.Second, 3 * time.Second},
				{180 * time.Second, AppAnswerTime}, {310 * time.Second, 5 * time.Second}, {320 * time.Second, AppAnswerTime},
			} {
				require.Equal(t, c.want, a.answerTime(sim.Time(c.at)), "at %v", c.at)
			}
		}},
		{"garbage-ignored", map[string]string{AnnotationStartLatency: "soon", AnnotationExitAfter: "-5s", AnnotationExitCode: "x",
			AnnotationHangAfter: "", AnnotationShutdown: "1 hour", AnnotationLoad: "60s-180s=3s,oops",
			AnnotationServeAfterSigterm: "-1s"}, func(t *testing.T, a appSpec) {
			require.Zero(t, a.serveAfterSigterm)
			require.GreaterOrEqual(t, a.startLatency, time.Second)
			require.False(t, a.exits)
			require.Equal(t, AppDefaultExitCode, a.exitCode)
			require.False(t, a.hangs)
			require.Equal(t, AppDefaultShutdown, a.shutdown)
			require.Empty(t, a.load)
		}},
		{"inverted-window-ignored", map[string]string{AnnotationLoad: "90s-30s=1s"}, func(t *testing.T, a appSpec) {
			require.Empty(t, a.load)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, parseApp(tc.ann, sim.NewStream(1, "test")))
		})
	}
}

// TestCrashBackoff: the first restart is immediate, then 10 s doubling to
// 300 s; a container that ran more than 10 min starts over.
func TestCrashBackoff(t *testing.T) {
	b := newCrashBackoff(DefaultBackoffInitial, DefaultBackoffMax)
	at := func(d time.Duration) sim.Time { return sim.Time(d) }
	now := at(0)
	var waits []time.Duration
	for i := 0; i < 9; i++ {
		finished := now.Add(time.Second) // each run lasts 1 s
		until, waiting := b.inBackoff("k", finished, finished)
		wait := time.Duration(0)
		if waiting {
			wait = until.Sub(finished)
		}
		waits = append(waits, wait)
		now = finished.Add(wait)
		b.next("k", finished, now)
	}
	require.Equal(t, []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 300 * time.Second, 300 * time.Second, 300 * time.Second}, waits)

	// Ten minutes and a bit of running: the next crash is the first again.
	finished := now.Add(10*time.Minute + time.Second)
	_, waiting := b.inBackoff("k", finished, finished)
	require.False(t, waiting)
	b.next("k", finished, finished)
	require.Equal(t, 10*time.Second, b.current("k"))
}
