package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The probe events of container "app" of pod "default/<pod>" (uid
// "<pod>-uid") on node.
func worker(ms int64, node, pod, probe string, success, failure int, initial bool) sev {
	return kev(ms, node, &spoketrace.ProbeWorker{Node: node, Pod: "default/" + pod, UID: pod + "-uid", Container: "app",
		Probe: probe, SuccessThreshold: success, FailureThreshold: failure, Initial: initial})
}

func probe(ms int64, node, pod, kind string, ok bool) sev {
	return kev(ms, node, &spoketrace.ProbeResult{Node: node, Pod: "default/" + pod, UID: pod + "-uid", Container: "app", Probe: kind, Success: ok})
}

func kill(ms int64, node, pod, reason string) sev {
	return kev(ms, node, &spoketrace.ContainerKill{Node: node, Pod: "default/" + pod, UID: pod + "-uid", Container: "app", Reason: reason, Grace: 30})
}

const live, rdy, strt = spoketrace.ProbeLiveness, spoketrace.ProbeReadiness, spoketrace.ProbeStartup

// probes is one probe result per second from ms on, F a failure, S a
// success.
func probes(ms int64, node, pod, kind, pattern string) []sev {
	var out []sev
	for i, c := range pattern {
		out = append(out, probe(ms+int64(i)*1000, node, pod, kind, c == 'S'))
	}
	return out
}

func trace(parts ...any) []sev {
	var out []sev
	for _, p := range parts {
		switch v := p.(type) {
		case sev:
			out = append(out, v)
		case []sev:
			out = append(out, v...)
		}
	}
	return out
}

func TestProbeSemantics(t *testing.T) {
	// A running pod a on node-1 with a liveness worker (failure 3) and a
	// readiness worker (success 2, failure 2), not ready yet.
	running := trace(start(0, "node-1", "a", "rs"), worker(0, "node-1", "a", live, 1, 3, true), worker(0, "node-1", "a", rdy, 2, 2, false))
	// ... made ready by two successes at 1 s and 2 s.
	readyAt2 := trace(running, probe(1000, "node-1", "a", rdy, true), probe(2000, "node-1", "a", rdy, true), ready(2000, "node-1", "a", true))
	cases := []probeCase{
		{"liveness failing fewer times in a row than its threshold never kills", trace(running, probes(1000, "node-1", "a", live, "FFSFFSFFS")),
			true, "9 probe result(s), 6 failure(s); 0 kill(s)"},
		{"the third failure in a row kills at once", trace(running, probes(1000, "node-1", "a", live, "FSFFF"), kill(5000, "node-1", "a", spoketrace.StopLiveness),
			stop(6000, "node-1", "a", spoketrace.StopLiveness, false)), true, "1 kill(s)"},
		{"readiness leaves after two failures in a row and returns after two successes",
			trace(readyAt2, probes(3000, "node-1", "a", rdy, "FSFF"), ready(6000, "node-1", "a", false), probes(7000, "node-1", "a", rdy, "SFSS"),
				ready(10000, "node-1", "a", true)), true, "1 readiness exit(s)"},
		{"a deleted pod leaves service, then its containers are killed", trace(readyAt2, ready(3000, "node-1", "a", false),
			kill(3000, "node-1", "a", spoketrace.StopDeleted), stop(3000, "node-1", "a", spoketrace.StopDeleted, true)), true, "1 kill(s)"},
		{"a container that exits takes its pod out of service", trace(readyAt2, stop(3000, "node-1", "a", spoketrace.StopExited, true),
			ready(3000, "node-1", "a", false)), true, "0 kill(s)"},
		{"a crash forgets what the kubelet reported", trace(readyAt2, sev{3000, hostOf("node-1"), sim.KindFault, "crash", nil},
			probe(4000, "node-2", "b", live, true)), true, "0 kill(s)"},
		{"a restarted kubelet's view is unknown until it reports", trace(readyAt2, sev{3000, hostOf("node-1"), sim.KindFault, "restart-process", nil},
			worker(3500, "node-1", "a", rdy, 2, 2, false)), true, "0 kill(s)"},
		{"a kubelet restarted while a pod terminates gives it no workers: ready while it runs", trace(readyAt2,
			kill(3000, "node-1", "a", spoketrace.StopDeleted), probes(4000, "node-1", "a", rdy, "FF"), ready(5000, "node-1", "a", false),
			sev{6000, hostOf("node-1"), sim.KindFault, "restart-process", nil}, ready(6500, "node-1", "a", true)), true, "1 kill(s)"},
		{"a kubelet restarted while a pod terminates: not ready while it runs", trace(readyAt2,
			kill(3000, "node-1", "a", spoketrace.StopDeleted), sev{6000, hostOf("node-1"), sim.KindFault, "restart-process", nil},
			ready(6500, "node-1", "a", true), ready(7000, "node-1", "a", false)),
			false, "reports pod default/a not ready, but every container runs and passes readiness: [app: no readiness worker]"},

		{"killed after two failures in a row", trace(running, probes(1000, "node-1", "a", live, "FFSFF"), kill(5000, "node-1", "a", spoketrace.StopLiveness)),
			false, "killed for liveness after 2 failure(s) in a row (failureThreshold 3)"},
		{"not killed at the threshold", trace(running, probes(1000, "node-1", "a", live, "FFF"), probe(13000, "node-1", "a", rdy, true)),
			false, "failed 3 times in a row, but the kubelet did not kill the container"},
		{"probed again while on hold", trace(running, probes(1000, "node-1", "a", live, "FFF"), kill(3000, "node-1", "a", spoketrace.StopDeleted),
			probe(4000, "node-1", "a", live, false)), false, "ran again after 3 failures in a row"},
		{"ready after one success of two", trace(running, probe(1000, "node-1", "a", rdy, true), ready(1000, "node-1", "a", true)),
			false, "reports pod default/a ready, but container app readiness not passed (1 success(es) in a row; successThreshold 2"},
		{"left service after one failure of two", trace(readyAt2, probe(3000, "node-1", "a", rdy, false), ready(3000, "node-1", "a", false)),
			false, "reports pod default/a not ready, but every container runs and passes readiness: [app: 1 failure(es) in a row"},
		{"stayed in service after two failures", trace(readyAt2, probes(3000, "node-1", "a", rdy, "FF"), probe(9000, "node-1", "a", live, true)),
			false, "reports pod default/a ready, but container app readiness not passed (2 failure(es) in a row"},
		{"ready while being killed, its readiness passing", trace(readyAt2, kill(3000, "node-1", "a", spoketrace.StopDeleted),
			probes(4000, "node-1", "a", rdy, "SS")), true, ""},
		{"out of service after readiness failures while being killed", trace(readyAt2, kill(3000, "node-1", "a", spoketrace.StopDeleted),
			probes(4000, "node-1", "a", rdy, "FF"), ready(5000, "node-1", "a", false)), true, ""},
		{"still ready after the container stopped", trace(readyAt2, kill(3000, "node-1", "a", spoketrace.StopDeleted),
			stop(8000, "node-1", "a", spoketrace.StopDeleted, true)),
			false, "reports pod default/a ready, but container app not running"},
		{"killed for readiness", trace(readyAt2, probes(3000, "node-1", "a", rdy, "FF"), ready(4000, "node-1", "a", false),
			kill(4000, "node-1", "a", spoketrace.StopReadiness)), false, "readiness never kills"},
		{"a probe without a worker", trace(start(0, "node-1", "a", "rs"), probe(1000, "node-1", "a", rdy, true)),
			false, "without a probe worker"},
	}
	cases = append(cases, startupCases()...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feedSpoke(NewProbeSemantics(), tc.evs...)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.String(), tc.want)
			if !tc.ok {
				require.NotEmpty(t, r.Offenses)
			}
		})
	}
}

// probeCase is one trace of TestProbeSemantics.
type probeCase struct {
	name string
	evs  []sev
	ok   bool
	want string
}

// startupCases: a running pod a with a startup worker (failureThreshold
// 3), a liveness worker (3) and a readiness worker (success 1, failure 1),
// as the prober runs them (k8s.io/kubernetes pkg/kubelet/prober/worker.go
// doProbe: the other probes wait until the container has started, the
// startup probe stops once it has; kuberuntime_manager.go
// computePodActions kills on a startup failure at the threshold).
func startupCases() []probeCase {
	running := trace(start(0, "node-1", "a", "rs"), worker(0, "node-1", "a", strt, 1, 3, false),
		worker(0, "node-1", "a", live, 1, 3, true), worker(0, "node-1", "a", rdy, 1, 1, false))
	started := trace(running, probes(1000, "node-1", "a", strt, "FFS"))
	return []probeCase{
		{"startup succeeds, then liveness and readiness run and the pod is ready", trace(started, probe(3000, "node-1", "a", rdy, true),
			ready(3000, "node-1", "a", true), probes(4000, "node-1", "a", live, "SS")), true, "6 probe result(s), 2 failure(s); 0 kill(s)"},
		{"the third startup failure in a row kills at once", trace(running, probes(1000, "node-1", "a", strt, "FFF"),
			kill(3000, "node-1", "a", spoketrace.StopStartup), stop(4000, "node-1", "a", spoketrace.StopStartup, false)), true, "1 kill(s)"},
		{"an adopted run the API showed started is not probed for startup", trace(start(0, "node-1", "a", "rs"),
			worker(0, "node-1", "a", strt, 1, 3, true), worker(0, "node-1", "a", live, 1, 3, true), probes(1000, "node-1", "a", live, "S")),
			true, "1 probe result(s)"},

		{"liveness before startup succeeded", trace(running, probe(1000, "node-1", "a", strt, false), probe(1500, "node-1", "a", live, false)),
			false, "liveness probe of container app of pod default/a on node-1 ran before its startup probe succeeded (1 failure(es) in a row"},
		{"readiness before startup succeeded", trace(running, probe(1500, "node-1", "a", rdy, true)),
			false, "readiness probe of container app of pod default/a on node-1 ran before its startup probe succeeded"},
		{"startup probed again after it succeeded", trace(started, probe(4000, "node-1", "a", strt, true)),
			false, "startup probe of container app of pod default/a on node-1 ran again after it succeeded"},
		{"ready before startup succeeded", trace(running, ready(500, "node-1", "a", true)),
			false, "reports pod default/a ready, but container app not started (startup 0 failure(es) in a row"},
		{"killed for startup after two failures", trace(running, probes(1000, "node-1", "a", strt, "FF"), kill(2000, "node-1", "a", spoketrace.StopStartup)),
			false, "killed for startup after 2 failure(s) in a row (failureThreshold 3)"},
		{"killed for startup after it succeeded", trace(started, kill(4000, "node-1", "a", spoketrace.StopStartup)),
			false, "killed for startup after 0 failure(s) in a row"},
		{"not killed at the startup threshold", trace(running, probes(1000, "node-1", "a", strt, "FFF"), probe(13000, "node-1", "b", live, true)),
			false, "startup probe of container app of pod default/a on node-1 failed 3 times in a row, but the kubelet did not kill the container"},
		{"startup probed again while on hold", trace(running, probes(1000, "node-1", "a", strt, "FFF"), kill(3000, "node-1", "a", spoketrace.StopDeleted),
			probe(4000, "node-1", "a", strt, false)), false, "startup probe of container app of pod default/a on node-1 ran again after 3 failures in a row"},
	}
}
