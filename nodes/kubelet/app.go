package kubelet

import (
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// The pod annotations that describe the simulated application (see the
// package documentation for their meaning and defaults).
const (
	// AnnotationStartLatency is the container start time (a duration).
	AnnotationStartLatency = "kubesim.io/start-latency"
	// AnnotationExitAfter makes the application exit this long after it
	// started running (a duration).
	AnnotationExitAfter = "kubesim.io/exit-after"
	// AnnotationExitCode is the exit code of AnnotationExitAfter (an
	// integer, default 1).
	AnnotationExitCode = "kubesim.io/exit-code"
	// AnnotationHangAfter makes the application hang this long after it
	// started running (a duration): it never answers a probe again.
	AnnotationHangAfter = "kubesim.io/hang-after"
	// AnnotationLoad lists busy windows of world virtual time and the
	// answer time of a probe started in each: "60s-180s=3s,300s-320s=5s".
	AnnotationLoad = "kubesim.io/load"
	// AnnotationShutdown is how long the application takes to exit after
	// SIGTERM (a duration, default 1 s; 0 s: it dies of the signal).
	AnnotationShutdown = "kubesim.io/shutdown"
	// AnnotationServeAfterSigterm is how long the application keeps
	// accepting and answering requests after SIGTERM before it starts its
	// shutdown (a duration, default 0: it stops accepting at SIGTERM), as
	// a well-behaved server drains.
	AnnotationServeAfterSigterm = "kubesim.io/serve-after-sigterm"
	// AnnotationLivenessPattern lists windows of world virtual time and a
	// pattern of answers of the liveness endpoint, as "40s-100s=FFS": the
	// probes that start in a window get the pattern's answers in turn
	// (F a failure, S a success), cyclically, counted per container run.
	AnnotationLivenessPattern = "kubesim.io/liveness-pattern"
	// AnnotationReadinessPattern is AnnotationLivenessPattern for the
	// readiness endpoint.
	AnnotationReadinessPattern = "kubesim.io/readiness-pattern"
	// AnnotationStartupPattern is AnnotationLivenessPattern for the
	// startup endpoint.
	AnnotationStartupPattern = "kubesim.io/startup-pattern"
	// AnnotationWarmup is how long the application takes to warm up after
	// it started running (a duration): until then its health endpoints
	// (startup, liveness and readiness alike) answer with a failure, as a
	// slow-starting application's do.
	AnnotationWarmup = "kubesim.io/warmup"
)

// Application defaults.
const (
	// AppAnswerTime is how long a probe takes outside busy windows.
	AppAnswerTime = 10 * time.Millisecond
	// AppStartLatencyMin and AppStartLatencyMax bound the default start
	// latency, drawn uniformly in [min, max).
	AppStartLatencyMin = time.Second
	AppStartLatencyMax = 2 * time.Second
	// AppDefaultExitCode is the exit code of exit-after without exit-code.
	AppDefaultExitCode = 1
	// AppDefaultShutdown is how long an application takes after SIGTERM.
	AppDefaultShutdown = time.Second
)

// Exit codes the runtime reports for stopped containers.
const (
	exitGraceful = 0   // the application shut down cleanly after SIGTERM
	exitSIGTERM  = 143 // 128+15: died of SIGTERM (no handler)
	exitSIGKILL  = 137 // 128+9: SIGKILLed
)

// window is one window of an application annotation: what a probe or
// request that starts in [from, to) gets.
type window[T any] struct {
	from, to sim.Time
	value    T
}

// loadWindow is one busy window: probes that start in it are answered
// after its value.
type loadWindow = window[time.Duration]

// patternWindow is one window of a probe pattern: the probes that start
// in it get the results of its value in turn, cyclically (true: a
// success).
type patternWindow = window[[]bool]

// windowAt returns the index of the first window of ws that holds t, or
// -1.
func windowAt[T any](ws []window[T], t sim.Time) int {
	for i, w := range ws {
		if t >= w.from && t < w.to {
			return i
		}
	}
	return -1
}

// appSpec is what one container run's application does.
type appSpec struct {
	startLatency time.Duration
	exitAfter    time.Duration // 0: never exits by itself
	exitCode     int
	hangAfter    time.Duration // 0 with hangs false: never hangs
	hangs        bool
	exits        bool
	load         []loadWindow
	shutdown     time.Duration
	// serveAfterSigterm: how long it keeps serving after SIGTERM.
	serveAfterSigterm time.Duration
	warmup            time.Duration // 0: answers at once
	// patterns are the answers of the liveness, readiness and startup
	// endpoints (indexed by probeKind).
	patterns [numProbeKinds][]patternWindow
}

// parseApp reads the application annotations; rnd draws the default start
// latency (always drawn, so that one container's annotations never shift
// another's draws).
func parseApp(ann map[string]string, rnd *sim.Stream) appSpec {
	span := int64(AppStartLatencyMax - AppStartLatencyMin)
	app := appSpec{
		startLatency: AppStartLatencyMin + time.Duration(rnd.Int64N(span)),
		exitCode:     AppDefaultExitCode,
		shutdown:     AppDefaultShutdown,
	}
	if d, ok := parseDuration(ann[AnnotationStartLatency]); ok {
		app.startLatency = d
	}
	if d, ok := parseDuration(ann[AnnotationExitAfter]); ok {
		app.exitAfter, app.exits = d, true
	}
	if s, ok := ann[AnnotationExitCode]; ok {
		if c, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && c >= 0 && c <= 255 {
			app.exitCode = c
		}
	}
	if d, ok := parseDuration(ann[AnnotationHangAfter]); ok {
		app.hangAfter, app.hangs = d, true
	}
	if w, ok := parseLoad(ann[AnnotationLoad]); ok {
		app.load = w
	}
	if d, ok := parseDuration(ann[AnnotationShutdown]); ok {
		app.shutdown = d
	}
	if d, ok := parseDuration(ann[AnnotationServeAfterSigterm]); ok {
		app.serveAfterSigterm = d
	}
	if d, ok := parseDuration(ann[AnnotationWarmup]); ok {
		app.warmup = d
	}
	if w, ok := parsePattern(ann[AnnotationLivenessPattern]); ok {
		app.patterns[liveness] = w
	}
	if w, ok := parsePattern(ann[AnnotationReadinessPattern]); ok {
		app.patterns[readiness] = w
	}
	if w, ok := parsePattern(ann[AnnotationStartupPattern]); ok {
		app.patterns[startup] = w
	}
	return app
}

// parseDuration parses a non-negative Go duration; "" and garbage fail.
func parseDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// parseWindows splits "from-to=value,..." into windows, each value parsed
// by val; any malformed window (or one that ends before it starts)
// invalidates the whole annotation.
func parseWindows[T any](s string, val func(string) (T, bool)) ([]window[T], bool) {
	if strings.TrimSpace(s) == "" {
		return nil, false
	}
	var out []window[T]
	for _, part := range strings.Split(s, ",") {
		span, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, false
		}
		fromS, toS, ok := strings.Cut(span, "-")
		if !ok {
			return nil, false
		}
		f, ok1 := parseDuration(fromS)
		t, ok2 := parseDuration(toS)
		x, ok3 := val(v)
		if !ok1 || !ok2 || !ok3 || t < f {
			return nil, false
		}
		out = append(out, window[T]{from: sim.Time(f), to: sim.Time(t), value: x})
	}
	return out, true
}

// parsePattern parses "from-to=FFS,...": a window's pattern is a
// non-empty string of F and S.
func parsePattern(s string) ([]patternWindow, bool) {
	return parseWindows(s, func(v string) ([]bool, bool) {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, false
		}
		out := make([]bool, len(v))
		for i, c := range v {
			switch c {
			case 'S':
				out[i] = true
			case 'F':
			default:
				return nil, false
			}
		}
		return out, true
	})
}

// parseLoad parses "from-to=answer,..."; any malformed window (or one that
// ends before it starts) invalidates the whole annotation.
func parseLoad(s string) ([]loadWindow, bool) { return parseWindows(s, parseDuration) }

// answerTime is how long a probe or request started at t takes to be
// answered (by a healthy application): the first busy window holding t
// decides.
func (a *appSpec) answerTime(t sim.Time) time.Duration {
	if i := windowAt(a.load, t); i >= 0 {
		return a.load[i].value
	}
	return AppAnswerTime
}

// patternWindowAt returns the index of the first window of kind's pattern
// that holds t, or -1.
func (a *appSpec) patternWindowAt(kind probeKind, t sim.Time) int {
	return windowAt(a.patterns[kind], t)
}
