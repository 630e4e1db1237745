package kubelet

import (
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
)

// Condition reasons the kubelet sets.
const (
	reasonContainersNotReady = "ContainersNotReady"
	reasonPodCompleted       = "PodCompleted"
)

// updatePodStatus computes the pod's status from the runtime and the
// probes, traces a change of its readiness, and hands it to the status
// manager.
func (p *process) updatePodStatus(ps *podState, sb *sandbox) {
	st := p.computeStatus(ps, sb)
	ready := false
	if _, c := model.GetPodCondition(&st, model.PodReady); c != nil {
		ready = c.Status == model.ConditionTrue
	}
	if ready != ps.readyView {
		p.traceReady(ps, ps.pod, ready)
	}
	p.setPodStatus(ps, st)
}

// computeStatus is generateAPIPodStatus: phase, conditions (transition
// times carried over from the last status while unchanged), container
// statuses, IPs and start time. Only kubelet-owned conditions are set; the
// status manager keeps the others from the API server.
func (p *process) computeStatus(ps *podState, sb *sandbox) model.PodStatus {
	pod := ps.pod
	base := &pod.Status
	if ps.desired != nil {
		base = ps.desired
	}
	now := model.Time(p.h.WallClock())
	st := model.PodStatus{HostIP: p.nodeIP, PodIP: base.PodIP, StartTime: base.StartTime}
	if st.StartTime == nil {
		st.StartTime = pod.Status.StartTime
	}
	if st.StartTime == nil {
		st.StartTime = model.Ptr(model.Time(ps.firstSeen))
	}
	if sb != nil {
		st.PodIP = sb.ip
	}
	var unready []string
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs := p.containerStatus(ps, sb, c)
		if !cs.Ready {
			unready = append(unready, c.Name)
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}
	st.Phase = podPhase(pod, st.ContainerStatuses, ps.finalize)

	setCond := func(t model.PodConditionType, ok bool, reason, msg string) {
		c := model.PodCondition{Type: t, Status: model.ConditionTrue, LastTransitionTime: now}
		if !ok {
			c.Status, c.Reason, c.Message = model.ConditionFalse, reason, msg
		}
		if _, old := model.GetPodCondition(base, t); old != nil && old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		st.Conditions = append(st.Conditions, c)
	}
	reason, msg := reasonContainersNotReady, "containers with unready status: ["+strings.Join(unready, " ")+"]"
	if st.Phase == model.PodSucceeded || st.Phase == model.PodFailed {
		reason, msg = reasonPodCompleted, ""
	}
	setCond(model.PodScheduled, true, "", "")
	setCond(model.PodInitialized, true, "", "")
	setCond(model.ContainersReady, len(unready) == 0, reason, msg)
	setCond(model.PodReady, len(unready) == 0, reason, msg)
	return st
}

// containerStatus is one container's status as the runtime and the
// probes see it.
func (p *process) containerStatus(ps *podState, sb *sandbox, c *model.Container) model.ContainerStatus {
	cs := model.ContainerStatus{Name: c.Name, Image: c.Image, Started: model.Ptr(false)}
	creating := &model.ContainerStateWaiting{Reason: model.ReasonContainerCreating}
	var rec *record
	if sb != nil {
		rec = sb.record(c.Name)
	}
	if rec == nil {
		cs.State.Waiting = creating
		return cs
	}
	switch {
	case rec.last != nil:
		cs.LastState.Terminated = terminatedOf(rec.last)
	case rec.seedLast != nil:
		t := *rec.seedLast
		cs.LastState.Terminated = &t
	}
	in := rec.cur
	switch {
	case in == nil:
		cs.RestartCount = int32(max(rec.nextRestarts()-1, 0))
		cs.State.Waiting = creating
	case in.state == stateCreating:
		cs.RestartCount = int32(in.restarts)
		cs.State.Waiting = creating
	case in.state == stateRunning:
		cs.RestartCount = int32(in.restarts)
		cs.State.Running = &model.ContainerStateRunning{StartedAt: model.Time(in.startedAt)}
		cs.Started = model.Ptr(ps.containerStarted(c, in))
		cs.Ready = ps.containerReady(c, in)
	default: // exited
		cs.RestartCount = int32(in.restarts)
		key := backoffKey(ps.uid, c.Name)
		if _, waiting := p.backoff.inBackoff(key, in.finishedAt, p.h.Now()); waiting &&
			ps.pod.DeletionTimestamp == nil && shouldRestart(restartPolicy(ps.pod), in) {
			cs.LastState.Terminated = terminatedOf(in)
			cs.State.Waiting = &model.ContainerStateWaiting{Reason: model.ReasonCrashLoopBackOff,
				Message: "back-off " + formatBackoff(p.backoff.current(key)) + " restarting failed container=" +
					c.Name + " pod=" + ps.pod.Name + "_" + ps.pod.Namespace + "(" + string(ps.uid) + ")"}
		} else {
			cs.State.Terminated = terminatedOf(in)
		}
	}
	return cs
}

// formatBackoff prints a back-off as the kubelet does ("10s", "5m0s").
func formatBackoff(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return d.String()
}

// terminatedOf is the terminated state of an exited run.
func terminatedOf(in *instance) *model.ContainerStateTerminated {
	reason := "Error"
	if in.exitCode == 0 {
		reason = "Completed"
	}
	return &model.ContainerStateTerminated{ExitCode: int32(in.exitCode), Reason: reason,
		StartedAt: model.Time(in.startedAt), FinishedAt: model.Time(in.finishedAt)}
}

// podPhase is the kubelet's getPhase: Pending while a container has not
// started, Running while one runs, and for a pod whose containers all
// stopped: Succeeded or Failed when it is terminal (being deleted) or its
// restart policy will not restart them, Running while they restart.
func podPhase(pod *model.Pod, statuses []model.ContainerStatus, terminal bool) model.PodPhase {
	var waiting, running, stopped, succeeded int
	for i := range statuses {
		cs := &statuses[i]
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.LastState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return model.PodPending
	case running > 0:
		return model.PodRunning
	case stopped > 0:
		if terminal {
			if stopped == succeeded {
				return model.PodSucceeded
			}
			return model.PodFailed
		}
		switch restartPolicy(pod) {
		case model.RestartPolicyAlways:
			return model.PodRunning
		case model.RestartPolicyNever:
			if stopped == succeeded {
				return model.PodSucceeded
			}
			return model.PodFailed
		}
		if stopped == succeeded {
			return model.PodSucceeded
		}
		return model.PodRunning
	}
	return model.PodPending
}
