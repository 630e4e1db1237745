package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

func withRequests(cpu, mem string) func(*model.Pod) {
	return func(p *model.Pod) {
		p.Spec.Containers[0].Resources.Requests = model.ResourceListOf("cpu", cpu, "memory", mem)
	}
}

// admissions lists the kubelet's admission decisions, in order.
func (r *recorder) admissions() []*spoketrace.PodAdmit {
	var out []*spoketrace.PodAdmit
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.PodAdmit); ok {
			out = append(out, d)
		}
	}
	return out
}

// TestAdmissionRejectsWhatDoesNotFit: a pod that does not fit what the
// admitted pods leave of allocatable is rejected (Failed, OutOfcpu, the
// real message) and never runs; once the pod in its way finished, the
// same request fits again. The pods count is checked first.
func TestAdmissionRejectsWhatDoesNotFit(t *testing.T) {
	e := newEnv(t, 7, 1, Config{Capacity: model.ResourceListOf("cpu", "1", "memory", "1Gi", "pods", "2")})
	e.create(newPod("a", map[string]string{AnnotationStartLatency: "1s"}, withRequests("600m", "100Mi")))
	e.runUntil(10*time.Second, "a ready", func() bool { return e.podReadyInAPI("a") })
	e.create(newPod("b", nil, withRequests("600m", "100Mi")))
	e.runUntil(10*time.Second, "b failed", func() bool { p := e.getPod("b"); return p != nil && p.Status.Phase == model.PodFailed })
	b := e.getPod("b")
	require.Equal(t, spoketrace.RejectOutOfCPU, b.Status.Reason)
	require.Equal(t, "Pod was rejected: Node didn't have enough resource: cpu, requested: 600, used: 600, capacity: 1000", b.Status.Message)
	e.Run(5 * time.Second)
	starts, _ := e.rec.starts("default/b")
	require.Empty(t, starts, "a rejected pod never runs")

	// A pod requesting nothing still counts against the pods limit.
	e.create(newPod("c", nil))
	e.runUntil(10*time.Second, "c ready", func() bool { return e.podReadyInAPI("c") })
	e.create(newPod("d", nil))
	e.runUntil(10*time.Second, "d failed", func() bool { p := e.getPod("d"); return p != nil && p.Status.Phase == model.PodFailed })
	require.Equal(t, spoketrace.RejectOutOfPods, e.getPod("d").Status.Reason)

	// a finishes: its 600m are free again.
	e.deletePod("a")
	e.runUntil(time.Minute, "a gone", func() bool { return e.getPod("a") == nil })
	e.create(newPod("f", nil, withRequests("600m", "100Mi")))
	e.runUntil(10*time.Second, "f ready", func() bool { return e.podReadyInAPI("f") })

	var got []string
	for _, a := range e.rec.admissions() {
		got = append(got, a.Pod+" "+a.Reason)
	}
	require.Equal(t, []string{"default/a ", "default/b OutOfcpu", "default/c ", "default/d OutOfpods", "default/f "}, got)
	require.Equal(t, int64(600), e.rec.admissions()[0].CPU)
	require.Equal(t, int64(100<<20), e.rec.admissions()[0].Memory)
}

// TestAdmissionAfterKubeletRestart: a restarted kubelet counts the pods
// its runtime still runs, so a pod that did not fit before does not fit
// after the restart either.
func TestAdmissionAfterKubeletRestart(t *testing.T) {
	e := newEnv(t, 8, 1, Config{Capacity: model.ResourceListOf("cpu", "1", "memory", "1Gi", "pods", "110")})
	e.create(newPod("a", map[string]string{AnnotationStartLatency: "1s"}, withRequests("600m", "100Mi")))
	e.runUntil(10*time.Second, "a ready", func() bool { return e.podReadyInAPI("a") })
	e.restartKubelet()
	e.create(newPod("b", nil, withRequests("600m", "100Mi")))
	e.runUntil(10*time.Second, "b failed", func() bool { p := e.getPod("b"); return p != nil && p.Status.Phase == model.PodFailed })
	starts, _ := e.rec.starts("default/a")
	require.Len(t, starts, 1, "a runs on, adopted")
	require.True(t, e.podReadyInAPI("a"))
}

// TestAdmissionInCreationOrder: pods that arrive together (the first list
// of a kubelet back from a crash) are admitted oldest first, whatever
// their names: the older z runs, the newer a that no longer fits beside it
// is rejected.
func TestAdmissionInCreationOrder(t *testing.T) {
	e := newEnv(t, 9, 1, Config{Capacity: model.ResourceListOf("cpu", "1", "memory", "1Gi", "pods", "110")})
	e.node.Crash()
	e.create(newPod("z", nil, withRequests("600m", "100Mi")))
	e.Run(time.Second)
	e.create(newPod("a", nil, withRequests("600m", "100Mi")))
	e.node.Restart()
	e.runUntil(30*time.Second, "a failed", func() bool { p := e.getPod("a"); return p != nil && p.Status.Phase == model.PodFailed })
	e.runUntil(30*time.Second, "z ready", func() bool { return e.podReadyInAPI("z") })
	var got []string
	for _, a := range e.rec.admissions() {
		got = append(got, a.Pod+" "+a.Reason)
	}
	require.Equal(t, []string{"default/z ", "default/a OutOfcpu"}, got)
}

// TestAdmissionCountsCrashLoopingPods: a pod in CrashLoopBackOff runs no
// container between its restarts, but it is still an active pod and keeps
// its requests: the kubelet's admission counts every pod that is not
// terminal (GetActivePods), whatever its containers do.
func TestAdmissionCountsCrashLoopingPods(t *testing.T) {
	e := newEnv(t, 7, 1, Config{Capacity: model.ResourceListOf("cpu", "1", "memory", "1Gi", "pods", "10")})
	e.create(newPod("a", map[string]string{AnnotationExitAfter: "1s"}, withRequests("600m", "100Mi")))
	// The first restart is immediate, the next waits out a 10 s backoff.
	e.runUntil(30*time.Second, "a exited twice", func() bool {
		stops := 0
		for _, ev := range e.rec.events {
			if d, ok := ev.data.(*spoketrace.ContainerStop); ok && d.Pod == "default/a" {
				stops++
			}
		}
		return stops == 2
	})
	e.create(newPod("b", nil, withRequests("600m", "100Mi")))
	e.runUntil(10*time.Second, "b failed", func() bool { p := e.getPod("b"); return p != nil && p.Status.Phase == model.PodFailed })
	require.Equal(t, spoketrace.RejectOutOfCPU, e.getPod("b").Status.Reason)
}
