package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestPodRunsAndReady: a pod bound to the node starts after its start
// latency, becomes Ready, and its status reaches the API server.
func TestPodRunsAndReady(t *testing.T) {
	e := newEnv(t, 11, 1, Config{})
	owner := model.UID("rs-uid")
	created := e.create(newPod("web", map[string]string{AnnotationStartLatency: "1500ms"}, func(p *model.Pod) {
		p.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: owner, Controller: model.Ptr(true)}}
	}))
	e.runUntil(10*time.Second, "pod ready in the API", func() bool { return e.podReadyInAPI("web") })

	starts, at := e.rec.starts("default/web")
	require.Len(t, starts, 1)
	require.Equal(t, &spoketrace.ContainerStart{Node: "node-1", Pod: "default/web", UID: string(created.UID),
		Owner: string(owner), Container: "app", Restarts: 0}, starts[0])
	require.Equal(t, []bool{true}, e.rec.readiness("default/web"))

	pod := e.getPod("web")
	require.Equal(t, model.PodRunning, pod.Status.Phase)
	require.Equal(t, "10.0.0.4", pod.Status.HostIP) // host index 3: etcd-1, apiserver-1, admin, node-1
	require.NotEmpty(t, pod.Status.PodIP)
	require.NotNil(t, pod.Status.StartTime)
	require.Len(t, pod.Status.ContainerStatuses, 1)
	cs := pod.Status.ContainerStatuses[0]
	require.True(t, cs.Ready)
	require.True(t, *cs.Started)
	require.Equal(t, int32(0), cs.RestartCount)
	require.NotNil(t, cs.State.Running)
	require.Equal(t, model.Time(at[0]), cs.State.Running.StartedAt)
	require.Equal(t, model.Time(*pod.Status.StartTime).Add(1500*time.Millisecond), cs.State.Running.StartedAt)
	var types []model.PodConditionType
	for _, c := range pod.Status.Conditions {
		types = append(types, c.Type)
		require.Equal(t, model.ConditionTrue, c.Status, c.Type)
	}
	require.Equal(t, []model.PodConditionType{model.PodScheduled, model.PodInitialized, model.ContainersReady, model.PodReady}, types)
}

// TestCrashLoopBackOff: an application that exits is restarted at once the
// first time, then after 10 s, 20 s, 40 s, 80 s (CrashLoopBackOff), and the
// API shows Waiting/CrashLoopBackOff with the last termination meanwhile.
func TestCrashLoopBackOff(t *testing.T) {
	e := newEnv(t, 5, 1, Config{})
	e.create(newPod("crash", map[string]string{AnnotationStartLatency: "1s", AnnotationExitAfter: "5s", AnnotationExitCode: "3"}))
	e.runUntil(5*time.Minute, "five restarts", func() bool {
		s, _ := e.rec.starts("default/crash")
		return len(s) == 6
	})
	starts, startAt := e.rec.starts("default/crash")
	stops, stopAt := e.rec.stops("default/crash")
	require.Len(t, stops, 5)
	var waits []time.Duration
	for i, s := range stops {
		require.Equal(t, spoketrace.StopExited, s.Reason)
		require.Equal(t, 3, s.ExitCode)
		require.True(t, s.Healthy)
		require.Equal(t, i, starts[i].Restarts)
		require.Equal(t, 5*time.Second, stopAt[i].Sub(startAt[i]))
		waits = append(waits, startAt[i+1].Sub(stopAt[i])-time.Second) // minus the start latency
	}
	require.Equal(t, []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second}, waits)

	// Five seconds after the next exit, the kubelet is backing off 160 s.
	e.runUntil(time.Minute, "sixth exit", func() bool { s, _ := e.rec.stops("default/crash"); return len(s) == 6 })
	e.Run(5 * time.Second)
	pod := e.getPod("crash")
	require.Equal(t, model.PodRunning, pod.Status.Phase)
	cs := pod.Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Waiting)
	require.Equal(t, model.ReasonCrashLoopBackOff, cs.State.Waiting.Reason)
	require.Contains(t, cs.State.Waiting.Message, "back-off 2m40s")
	require.Equal(t, int32(5), cs.RestartCount)
	require.NotNil(t, cs.LastState.Terminated)
	require.Equal(t, int32(3), cs.LastState.Terminated.ExitCode)
	require.False(t, cs.Ready)
	require.False(t, model.IsPodReady(pod))
}

// TestRestartPolicies: under Never and OnFailure a finished pod reaches
// its terminal phase (or restarts, for OnFailure with a failure).
func TestRestartPolicies(t *testing.T) {
	tests := []struct {
		name     string
		policy   model.RestartPolicy
		code     string
		phase    model.PodPhase
		restarts int
	}{
		{"never-success", model.RestartPolicyNever, "0", model.PodSucceeded, 0},
		{"never-failure", model.RestartPolicyNever, "2", model.PodFailed, 0},
		{"onfailure-success", model.RestartPolicyOnFailure, "0", model.PodSucceeded, 0},
		{"onfailure-failure", model.RestartPolicyOnFailure, "2", model.PodRunning, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 2, 1, Config{})
			e.create(newPod("job", map[string]string{AnnotationExitAfter: "3s", AnnotationExitCode: tc.code}, withPolicy(tc.policy)))
			e.Run(30 * time.Second)
			starts, _ := e.rec.starts("default/job")
			require.Len(t, starts, tc.restarts+1)
			pod := e.getPod("job")
			require.Equal(t, tc.phase, pod.Status.Phase)
		})
	}
}

// TestLivenessKillsHungApp: a hung application fails its liveness probe
// three times, is killed (SIGKILLed after the grace period: a hung
// application ignores SIGTERM) and restarted.
func TestLivenessKillsHungApp(t *testing.T) {
	e := newEnv(t, 9, 1, Config{})
	e.create(newPod("hang", map[string]string{AnnotationStartLatency: "1s", AnnotationHangAfter: "10s"},
		withLiveness(model.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 3}), withGrace(5)))
	e.runUntil(2*time.Minute, "restart", func() bool { s, _ := e.rec.starts("default/hang"); return len(s) == 2 })
	starts, startAt := e.rec.starts("default/hang")
	stops, stopAt := e.rec.stops("default/hang")
	require.Len(t, stops, 1)
	require.Equal(t, spoketrace.StopLiveness, stops[0].Reason)
	require.False(t, stops[0].Healthy)
	require.Equal(t, 137, stops[0].ExitCode)
	// Probes at +0, +5, +10 (hung), +15, +20 (third failure, known at
	// +21 after the timeout), SIGKILL 5 s later.
	require.Equal(t, 26*time.Second, stopAt[0].Sub(startAt[0]))
	require.Equal(t, 1, starts[1].Restarts)
	require.Equal(t, time.Second, startAt[1].Sub(stopAt[0])) // first restart: no back-off
}

// TestLoadWindow: during a busy window a tight liveness probe restarts a
// healthy application (Healthy=true), while a readiness-only pod goes
// unready and back without a restart; with the liveness-as-readiness
// ablation the readiness-only pod is restarted too (StopReadiness).
func TestLoadWindow(t *testing.T) {
	tests := []struct {
		name       string
		ablation   bool
		readyStops []string
	}{
		{"readiness-only-stays", false, nil},
		{"liveness-as-readiness", true, []string{spoketrace.StopReadiness}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 4, 1, Config{Ablations: ablation.When(tc.ablation, ablation.LivenessAsReadiness)})
			probe := model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 3}
			ann := map[string]string{AnnotationLoad: "30s-45s=3s", AnnotationStartLatency: "1s"}
			e.create(newPod("live", ann, withLiveness(probe)))
			e.create(newPod("ready", ann, withReadiness(probe)))
			e.Run(90 * time.Second)

			stops, _ := e.rec.stops("default/live")
			require.NotEmpty(t, stops)
			require.Equal(t, spoketrace.StopLiveness, stops[0].Reason)
			require.True(t, stops[0].Healthy)
			require.Equal(t, 0, stops[0].ExitCode) // it shut down cleanly on SIGTERM

			rstops, _ := e.rec.stops("default/ready")
			var reasons []string
			for _, s := range rstops {
				reasons = append(reasons, s.Reason)
				require.True(t, s.Healthy)
			}
			if tc.readyStops == nil {
				require.Empty(t, reasons)
				require.Equal(t, []bool{true, false, true}, e.rec.readiness("default/ready"))
			} else {
				require.NotEmpty(t, reasons)
				require.Equal(t, tc.readyStops, reasons[:1])
			}
			require.True(t, e.podReadyInAPI("ready"))
		})
	}
}

// TestGracefulDeletion: a deleted pod's containers get SIGTERM and exit
// after their shutdown time (or are SIGKILLed when the grace period runs
// out); then the kubelet posts the final status and deletes the pod.
func TestGracefulDeletion(t *testing.T) {
	tests := []struct {
		name     string
		shutdown string
		grace    int64
		code     int
		took     time.Duration
	}{
		{"clean", "2s", 30, 0, 2 * time.Second},
		{"sigterm", "0s", 30, 143, 0},
		{"sigkill", "60s", 5, 137, 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 6, 1, Config{})
			e.create(newPod("gone", map[string]string{AnnotationShutdown: tc.shutdown}, withGrace(tc.grace)))
			e.runUntil(10*time.Second, "ready", func() bool { return e.podReadyInAPI("gone") })
			asked := e.W.Now()
			e.deletePod("gone")
			e.runUntil(time.Minute, "pod removed", func() bool { return e.getPod("gone") == nil })
			stops, stopAt := e.rec.stops("default/gone")
			require.Len(t, stops, 1)
			require.Equal(t, spoketrace.StopDeleted, stops[0].Reason)
			require.Equal(t, tc.code, stops[0].ExitCode)
			require.True(t, stops[0].Healthy)
			// The kubelet saw the deletion within a few ms, and the
			// container took its shutdown (or grace) time to stop.
			took := stopAt[0].Sub(asked)
			require.GreaterOrEqual(t, took, tc.took)
			require.Less(t, took, tc.took+100*time.Millisecond)
			require.Equal(t, []bool{true, false}, e.rec.readiness("default/gone"))
			starts, _ := e.rec.starts("default/gone")
			require.Len(t, starts, 1)
		})
	}
}
