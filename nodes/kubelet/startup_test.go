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

func withStartup(pr model.Probe) func(*model.Pod) {
	return func(p *model.Pod) { p.Spec.Containers[0].StartupProbe = &pr }
}

// probeTimes lists when the kubelet traced a pod's probe results of kind.
func (r *recorder) probeTimes(pod, kind string) (at []sim.Time) {
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.ProbeResult); ok && d.Pod == pod && d.Probe == kind {
			at = append(at, e.at)
		}
	}
	return at
}

// TestStartupProbeGatesTheOthers: a container whose application warms up
// for 12 s, with a startup probe (every 2 s, 10 failures allowed), a
// liveness probe that would kill it within 6 s of failures, and a
// readiness probe. As doProbe (pkg/kubelet/prober/worker.go: "Disable
// other probes until container has started", "Stop probing for startup
// once container has started"), only the startup probe runs until it
// succeeds, then never again; readiness is probed at once then (the
// manual trigger of prober_manager.go UpdatePodStatus) and the pod
// becomes ready; the API's started is false, then true
// (isContainerStarted); the container is never killed. With the
// liveness-before-startup ablation the liveness probe runs during the
// warm-up and kills the container.
func TestStartupProbeGatesTheOthers(t *testing.T) {
	for _, abl := range []ablation.Set{ablation.Of(), ablation.Of(ablation.LivenessBeforeStartup)} {
		e := newEnv(t, 5, 1, Config{Ablations: abl})
		e.create(newPod("p", map[string]string{AnnotationStartLatency: "1s", AnnotationWarmup: "12s"},
			withStartup(model.Probe{PeriodSeconds: 2, FailureThreshold: 10}),
			withLiveness(model.Probe{PeriodSeconds: 2, FailureThreshold: 3}),
			withReadiness(model.Probe{PeriodSeconds: 5})))
		e.runUntil(10*time.Second, "running", func() bool { s, _ := e.rec.starts("default/p"); return len(s) == 1 })
		_, startAt := e.rec.starts("default/p")
		e.Run(startAt[0].Add(5 * time.Second).Sub(e.W.Now()))
		if abl.Has(ablation.LivenessBeforeStartup) {
			e.Run(20 * time.Second)
			stops, _ := e.rec.stops("default/p")
			require.NotEmpty(t, stops)
			require.Equal(t, spoketrace.StopLiveness, stops[0].Reason, "killed while it warmed up")
			continue
		}
		cs := e.getPod("p").Status.ContainerStatuses[0]
		require.NotNil(t, cs.State.Running)
		require.False(t, model.Deref(cs.Started, true), "not started while warming up")
		require.False(t, cs.Ready)
		e.Run(20 * time.Second)
		startup := e.rec.probeTimes("default/p", spoketrace.ProbeStartup)
		results := e.rec.probeResults("default/p", spoketrace.ProbeStartup)
		require.Equal(t, "FFFFFFS", results, "failures while warming up (12 s at 2 s), then one success, then no more")
		started := startup[len(startup)-1]
		for _, kind := range []string{spoketrace.ProbeLiveness, spoketrace.ProbeReadiness} {
			at := e.rec.probeTimes("default/p", kind)
			require.NotEmpty(t, at, kind)
			require.GreaterOrEqual(t, at[0], started, "%s probed before startup succeeded", kind)
		}
		require.Equal(t, started, e.rec.probeTimes("default/p", spoketrace.ProbeReadiness)[0].Add(-AppAnswerTime),
			"readiness probed at once when startup succeeded")
		require.Equal(t, []bool{true}, e.rec.readiness("default/p"))
		stops, _ := e.rec.stops("default/p")
		require.Empty(t, stops)
		cs = e.getPod("p").Status.ContainerStatuses[0]
		require.True(t, model.Deref(cs.Started, false))
		require.True(t, cs.Ready)
	}
}

// TestStartupProbeFailureKills: a startup probe that fails
// failureThreshold (3) times in a row kills the container, as a liveness
// failure does (pkg/kubelet/kuberuntime/kuberuntime_manager.go
// computePodActions, "failed startup probe"), and the worker holds until
// the container runs again (doProbe's onHold); the container is restarted
// per restartPolicy (Always here) and probed from zero.
func TestStartupProbeFailureKills(t *testing.T) {
	e := newEnv(t, 6, 1, Config{})
	e.create(newPod("p", map[string]string{AnnotationStartLatency: "1s", AnnotationWarmup: "1h"},
		withStartup(model.Probe{PeriodSeconds: 2, FailureThreshold: 3}),
		withLiveness(model.Probe{PeriodSeconds: 1})))
	e.runUntil(60*time.Second, "restarted", func() bool { s, _ := e.rec.starts("default/p"); return len(s) == 2 })
	stops, stopAt := e.rec.stops("default/p")
	require.NotEmpty(t, stops)
	require.Equal(t, spoketrace.StopStartup, stops[0].Reason)
	require.Equal(t, "FFF", e.rec.until(stopAt[0]).probeResults("default/p", spoketrace.ProbeStartup))
	require.Empty(t, e.rec.probeResults("default/p", spoketrace.ProbeLiveness), "liveness never ran: never started")
	require.Empty(t, e.rec.readiness("default/p"))
}

// TestAdoptedRunKeepsStarted: a run a restarted kubelet adopts keeps the
// API's started (true) and is not probed for startup again; liveness runs
// on (prober_manager.go isContainerStarted, while the
// ChangeContainerStatusOnKubeletRestart gate is off, its default).
func TestAdoptedRunKeepsStarted(t *testing.T) {
	e := newEnv(t, 7, 1, Config{})
	e.create(newPod("p", map[string]string{AnnotationStartLatency: "1s", AnnotationWarmup: "3s"},
		withStartup(model.Probe{PeriodSeconds: 1, FailureThreshold: 10}),
		withLiveness(model.Probe{PeriodSeconds: 1})))
	e.runUntil(30*time.Second, "started in the API", func() bool {
		p := e.getPod("p")
		return len(p.Status.ContainerStatuses) == 1 && model.Deref(p.Status.ContainerStatuses[0].Started, false)
	})
	e.Run(2 * time.Second)
	before := len(e.rec.probeResults("default/p", spoketrace.ProbeStartup))
	restartAt := e.W.Now()
	e.restartKubelet()
	e.Run(10 * time.Second)
	require.Equal(t, before, len(e.rec.probeResults("default/p", spoketrace.ProbeStartup)), "no startup probe after the restart")
	require.NotEmpty(t, e.rec.since(restartAt).probeResults("default/p", spoketrace.ProbeLiveness))
	require.True(t, model.Deref(e.getPod("p").Status.ContainerStatuses[0].Started, false))
}
