package kubelet

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestKubeletRestartAdoptsContainers: restarting the kubelet process
// leaves its containers running (no stop, no new start, no readiness
// blip), while a host crash and restart starts them again, the restart
// count continuing from the API's status.
func TestKubeletRestartAdoptsContainers(t *testing.T) {
	e := newEnv(t, 13, 1, Config{})
	probe := model.Probe{PeriodSeconds: 3, TimeoutSeconds: 1}
	e.create(newPod("web", nil, withLiveness(probe), withReadiness(probe)))
	e.runUntil(20*time.Second, "ready", func() bool { return e.podReadyInAPI("web") })

	k := e.kubelet()
	restartAt := e.W.Now()
	e.restartKubelet()
	require.Equal(t, 2, k.Generation())
	e.Run(2 * time.Minute)
	after := e.rec.since(restartAt)
	starts, _ := after.starts("default/web")
	stops, _ := after.stops("default/web")
	require.Empty(t, starts)
	require.Empty(t, stops)
	require.Empty(t, after.readiness("default/web"))
	require.NotEmpty(t, after.heartbeats("node-1"), "the new process renews the lease")
	pod := e.getPod("web")
	require.True(t, model.IsPodReady(pod))
	require.Equal(t, int32(0), pod.Status.ContainerStatuses[0].RestartCount)

	crashAt := e.W.Now()
	e.node.Crash()
	e.Run(5 * time.Second)
	e.node.Restart()
	e.runUntil(30*time.Second, "ready again", func() bool {
		p := e.getPod("web")
		return model.IsPodReady(p) && p.Status.ContainerStatuses[0].RestartCount == 1
	})
	after = e.rec.since(crashAt)
	starts, _ = after.starts("default/web")
	stops, _ = after.stops("default/web")
	require.Empty(t, stops, "a crash is not a container stop")
	require.Len(t, starts, 1)
	require.Equal(t, 1, starts[0].Restarts)
	require.Equal(t, []bool{false, true}, after.readiness("default/web"))
	cs := e.getPod("web").Status.ContainerStatuses[0]
	require.Equal(t, "ContainerStatusUnknown", cs.LastState.Terminated.Reason)
}

// TestPartitionKeepsRunning: cut off from the API servers, the kubelet
// keeps its containers running, restarting and probing them; it cannot
// report (no heartbeats, a stale status), and catches up after the heal.
func TestPartitionKeepsRunning(t *testing.T) {
	e := newEnv(t, 17, 3, Config{})
	e.create(newPod("crash", map[string]string{AnnotationExitAfter: "20s", AnnotationStartLatency: "1s"}))
	e.create(newPod("busy", map[string]string{AnnotationLoad: "60s-80s=3s"},
		withReadiness(model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 1})))
	e.runUntil(20*time.Second, "ready", func() bool { return e.podReadyInAPI("busy") })

	cutAt := e.W.Now()
	cuts := e.W.Network().Partition([][]sim.HostID{{e.node.ID()}, e.Servers})
	e.Run(90 * time.Second)
	during := e.rec.since(cutAt)
	require.Empty(t, during.heartbeats("node-1"))
	starts, _ := during.starts("default/crash")
	require.GreaterOrEqual(t, len(starts), 2, "restarts go on")
	require.Equal(t, []bool{false, true}, during.readiness("default/busy"), "probes go on")
	runtimeRestarts := starts[len(starts)-1].Restarts
	stale := e.getPod("crash").Status.ContainerStatuses[0].RestartCount
	require.Less(t, int(stale), runtimeRestarts, "the API server has not heard")

	healAt := e.W.Now()
	e.W.Network().Restore(cuts)
	e.Run(30 * time.Second)
	require.NotEmpty(t, e.rec.since(healAt).heartbeats("node-1"))
	all, _ := e.rec.starts("default/crash")
	require.Equal(t, int32(all[len(all)-1].Restarts), e.getPod("crash").Status.ContainerStatuses[0].RestartCount)
	require.True(t, e.podReadyInAPI("busy"))
}

// TestPodGoneIsKilled: a pod that disappears from the API server (a
// force deletion, grace period 0) has its containers killed at once.
func TestPodGoneIsKilled(t *testing.T) {
	e := newEnv(t, 19, 1, Config{})
	e.create(newPod("victim", nil))
	e.runUntil(10*time.Second, "ready", func() bool { return e.podReadyInAPI("victim") })
	done := false
	e.Admin().Pods("default").Delete("victim", client.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))},
		func(_ model.Object, err error) { require.NoError(t, err); done = true })
	e.runUntil(10*time.Second, "deleted", func() bool { return done })
	e.Run(time.Second)
	stops, _ := e.rec.stops("default/victim")
	require.Equal(t, []*spoketrace.ContainerStop{{Node: "node-1", Pod: "default/victim", UID: stops[0].UID,
		Container: "app", Reason: spoketrace.StopDeleted, ExitCode: 137, Healthy: true}}, stops)
	require.Equal(t, []bool{true, false}, e.rec.readiness("default/victim"))
}

// TestDeterminism: the same seed gives the same trace, byte for byte.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) uint64 {
		e := newEnv(t, seed, 3, Config{})
		probe := model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1}
		e.create(newPod("a", map[string]string{AnnotationExitAfter: "7s", AnnotationLoad: "20s-40s=2s"}, withLiveness(probe)))
		e.create(newPod("b", map[string]string{AnnotationHangAfter: "15s"}, withReadiness(probe)))
		e.Run(2 * time.Minute)
		e.restartKubelet()
		e.Run(time.Minute)
		e.deletePod("a")
		e.Run(time.Minute)
		return e.W.Trace().Hash()
	}
	require.Equal(t, run(21), run(21))
	require.NotEqual(t, run(21), run(22))
}

// TestRestartReportsReadinessItActsOn: a kubelet process that reported a
// pod not ready (its containers gone with the host) and stopped before
// its status reached the API server leaves the API's stale Ready behind.
// The next process takes that Ready as its view, as the prober keeps an
// adopted container's; it must say so in the trace, or a reader of the
// trace keeps the old "not ready" while the kubelet serves the pod as
// ready (the stack-chaos seed of catalogue's stack-chaos-m5-s1 corpus
// entry).
func TestRestartReportsReadinessItActsOn(t *testing.T) {
	e := newEnv(t, 13, 1, Config{})
	e.create(newPod("web", nil))
	e.runUntil(20*time.Second, "ready", func() bool { return e.podReadyInAPI("web") })

	e.node.Crash()
	e.Run(time.Second)
	e.node.Restart()
	from := e.W.Now()
	for !slices.Contains(e.rec.since(from).readiness("default/web"), false) {
		require.True(t, e.W.Step(), "the restarted host's kubelet reports the pod not ready")
	}
	// Its status post is lost: the node is cut off from the API server
	// in the same instant, and the kubelet restarts.
	e.W.Inject(sim.Fault{Kind: sim.FaultPartition, Targets: [][]string{{"node-1"}, {"apiserver-1"}}, For: 3 * time.Second})
	e.restartKubelet()
	e.Run(time.Minute)

	reported := e.rec.readiness("default/web")
	require.True(t, e.podReadyInAPI("web"))
	require.True(t, reported[len(reported)-1], "the trace's last word on the pod is its kubelet's view: ready (reported %v)", reported)
	sb := e.kubelet().rt.sandbox(e.getPod("web").UID)
	require.NotNil(t, sb)
	require.True(t, e.kubelet().readyView(sb))
}

// TestRebootReportsReadyOnlyWithARun: a host that reboots again before its
// kubelet's "not ready" reached the API server finds the API's stale Ready
// there. Its kubelet reports the pod ready again only once a container of
// it runs: the stale Ready is not its view of a pod with nothing running.
func TestRebootReportsReadyOnlyWithARun(t *testing.T) {
	e := newEnv(t, 13, 1, Config{})
	e.create(newPod("web", nil))
	e.runUntil(20*time.Second, "ready", func() bool { return e.podReadyInAPI("web") })

	e.node.Crash()
	e.Run(time.Second)
	e.node.Restart()
	from := e.W.Now()
	for !slices.Contains(e.rec.since(from).readiness("default/web"), false) {
		require.True(t, e.W.Step(), "the restarted host's kubelet reports the pod not ready")
	}
	e.W.Inject(sim.Fault{Kind: sim.FaultPartition, Targets: [][]string{{"node-1"}, {"apiserver-1"}}, For: 3 * time.Second})
	e.node.Crash()
	e.Run(100 * time.Millisecond)
	e.node.Restart()
	rebooted := e.W.Now()
	e.Run(time.Minute)

	require.True(t, e.podReadyInAPI("web"))
	var started bool
	for _, ev := range e.rec.since(rebooted).events {
		switch d := ev.data.(type) {
		case *spoketrace.ContainerStart:
			started = true
		case *spoketrace.PodReady:
			require.False(t, d.Ready && !started, "reported ready at %v with no container started since the reboot", ev.at)
		}
	}
	reported := e.rec.readiness("default/web")
	require.True(t, reported[len(reported)-1], "the last report is ready (reported %v)", reported)
}

// TestRestartWhileTerminatingReportsUnprobedReady: a kubelet that restarts
// while a pod is in its preStop hook syncs it only as terminating and
// gives its container no probe workers; with none, the prober reports a
// running container ready (UpdatePodStatus: "no readinessProbe -> always
// ready"), so the pod stays ready until its container exits, as before
// the restart. (Found by stack-swarm's seed 6 at 3 members: probe-semantics
// saw the restarted kubelet report a running, passing pod not ready.)
func TestRestartWhileTerminatingReportsUnprobedReady(t *testing.T) {
	e := newEnv(t, 13, 1, Config{})
	probe := model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1}
	e.create(newPod("web", nil, withReadiness(probe), withPreStop(10), withGrace(30)))
	e.runUntil(20*time.Second, "ready", func() bool { return e.podReadyInAPI("web") })

	e.deletePod("web")
	e.Run(2 * time.Second)
	restartAt := e.W.Now()
	e.restartKubelet()
	e.Run(time.Minute)

	var stopAt, notReadyAt sim.Time
	for _, ev := range e.rec.since(restartAt).events {
		switch d := ev.data.(type) {
		case *spoketrace.ContainerStop:
			if stopAt == 0 {
				stopAt = ev.at
			}
		case *spoketrace.PodReady:
			if !d.Ready && notReadyAt == 0 {
				notReadyAt = ev.at
			}
		}
	}
	require.NotZero(t, stopAt, "the container exits once its preStop hook and SIGTERM are through")
	require.NotZero(t, notReadyAt, "the pod is reported not ready once its container exited")
	require.GreaterOrEqual(t, notReadyAt, stopAt, "reported not ready at %v, while its container ran until %v", notReadyAt, stopAt)
}
