package kubelet

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// podState is what the kubelet process knows of one pod bound to its node.
type podState struct {
	uid       model.UID
	pod       *model.Pod // the informer's latest (shared: never modify)
	firstSeen sim.Time   // the wall clock when first seen: the pod's startTime
	readyView bool       // the readiness this process reports (readiness.go)

	probes       map[string]*containerProbes // by container name
	backoffTimer *sim.Timer
	finalize     bool // deleting, and every container stopped

	// Admission: admitted to run, or rejected with the Failed status
	// rejection.
	admitted, rejected bool
	rejection          *model.PodStatus

	// Status manager.
	desired          *model.PodStatus
	version, acked   uint64
	posting, repost  bool
	deleting, delete bool // the final Delete: in flight, acknowledged
}

func (p *process) handlePodAdd(obj model.Object) {
	pod, ok := obj.(*model.Pod)
	if !ok {
		return
	}
	ps := p.tracked[pod.UID]
	if pod.Spec.NodeName != p.cfg.Node {
		if ps != nil {
			p.removePod(pod.UID)
		}
		return
	}
	if ps == nil {
		ps = &podState{uid: pod.UID, firstSeen: p.h.WallClock(), probes: make(map[string]*containerProbes)}
		p.tracked[pod.UID] = ps
		p.startReadyView(ps, pod)
	}
	ps.pod = pod
	p.enqueue(pod.UID)
}

func (p *process) handlePodUpdate(oldObj, newObj model.Object) {
	oldPod, ok1 := oldObj.(*model.Pod)
	newPod, ok2 := newObj.(*model.Pod)
	if !ok1 || !ok2 {
		return
	}
	if oldPod.UID != newPod.UID {
		p.removePod(oldPod.UID) // deleted and recreated under the same name
	}
	p.handlePodAdd(newPod)
}

func (p *process) handlePodDelete(obj any) {
	if pod, ok := cache.ObjectOf(obj).(*model.Pod); ok {
		p.removePod(pod.UID)
	}
}

// removePod handles a pod gone from the API server: its containers are
// killed at once (StopDeleted) and everything about it forgotten.
func (p *process) removePod(uid model.UID) {
	ps := p.tracked[uid]
	if ps != nil {
		delete(p.tracked, uid)
		for _, name := range sim.SortedKeys(ps.probes) {
			ps.probes[name].stop()
		}
		if ps.backoffTimer != nil {
			ps.backoffTimer.Stop()
		}
		var keys []string
		for i := range ps.pod.Spec.Containers {
			keys = append(keys, backoffKey(uid, ps.pod.Spec.Containers[i].Name))
		}
		p.backoff.forget(keys)
		if ps.readyView {
			p.traceReady(ps, ps.pod, false)
		}
	}
	p.rt.removeSandbox(uid)
}

// killContainer stops a container run as the kubelet's killContainer
// does: its preStop sleep (container c's, nil when the spec has none) runs
// first, within grace, then SIGTERM, then SIGKILL at the end of grace. The
// kubelet-no-prestop ablation skips the hook.
func (p *process) killContainer(pod *model.Pod, c *model.Container, in *instance, grace time.Duration, reason string, byProbe bool) {
	preStop := time.Duration(-1)
	if c != nil && !p.cfg.Ablations.Has(ablation.KubeletNoPreStop) {
		if s, ok := c.PreStopSleep(); ok {
			preStop = time.Duration(max(s, 0)) * time.Second
		}
	}
	if p.cfg.Ablations.Has(ablation.KubeletNoSIGKILL) {
		grace = 24 * time.Hour // as good as never
	}
	p.rt.stop(in, grace, preStop, reason, byProbe)
}

// containerSpec returns pod's container called name, or nil.
func containerSpec(pod *model.Pod, name string) *model.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	return nil
}

func backoffKey(uid model.UID, container string) string { return string(uid) + "/" + container }

// podGrace is the grace period of stopping pod's containers: the deletion's
// grace period, or terminationGracePeriodSeconds (default 30 s).
func podGrace(pod *model.Pod) time.Duration {
	s := model.Deref(pod.Spec.TerminationGracePeriodSeconds, model.DefaultTerminationGracePeriodSeconds)
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		s = *pod.DeletionGracePeriodSeconds
	}
	return time.Duration(max(s, 0)) * time.Second
}

func restartPolicy(pod *model.Pod) model.RestartPolicy {
	if pod.Spec.RestartPolicy == "" {
		return model.RestartPolicyAlways
	}
	return pod.Spec.RestartPolicy
}

// shouldRestart says whether an exited run is restarted: Always restarts
// every exit, OnFailure non-zero exits and probe kills, Never nothing.
func shouldRestart(policy model.RestartPolicy, in *instance) bool {
	switch policy {
	case model.RestartPolicyNever:
		return false
	case model.RestartPolicyOnFailure:
		return in.exitCode != 0 || in.byProbe
	}
	return true
}

// syncPod brings pod uid's containers where its spec wants them and
// updates its status.
func (p *process) syncPod(uid model.UID) {
	ps := p.tracked[uid]
	if ps == nil || p.fenced() {
		return
	}
	if ps.rejected {
		p.syncRejected(ps)
		return
	}
	sb := p.rt.sandbox(uid)
	switch {
	case sb == nil && !ps.admitted && ps.pod.DeletionTimestamp == nil && !model.IsPodTerminal(ps.pod):
		return // not admitted yet: its batch's admission comes first
	case ps.pod.DeletionTimestamp != nil && !p.cfg.Ablations.Has(ablation.IgnoreDeletion):
		p.syncTerminating(ps, sb)
	case sb == nil && model.IsPodTerminal(ps.pod):
		return // it finished before this runtime: never run it again
	default:
		sb = p.syncRunning(ps, sb)
	}
	p.updatePodStatus(ps, sb)
}

// syncRunning starts, restarts (after CrashLoopBackOff) and kills (after
// probe failures) the containers of a pod that is not being deleted.
func (p *process) syncRunning(ps *podState, sb *sandbox) *sandbox {
	pod := ps.pod
	if sb == nil {
		sb = p.rt.ensureSandbox(pod)
	}
	now := p.h.Now()
	policy := restartPolicy(pod)
	var wake sim.Time
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		rec := sb.record(c.Name)
		if rec == nil {
			base, last := apiRestartBase(pod, c.Name)
			rec = sb.addRecord(c.Name, base, last)
		}
		in := rec.cur
		switch {
		case in == nil:
			p.startContainer(ps, sb, rec)
		case in.state == stateRunning:
			p.ensureProbes(ps, in, c)
			if reason := ps.probeKill(c.Name, in); reason != "" && !in.stopping {
				p.killContainer(pod, c, in, podGrace(pod), reason, true)
			}
		case in.state == stateExited:
			if !shouldRestart(policy, in) {
				continue
			}
			key := backoffKey(pod.UID, c.Name)
			if until, waiting := p.backoff.inBackoff(key, in.finishedAt, now); waiting {
				if wake == 0 || until < wake {
					wake = until
				}
				continue
			}
			p.backoff.next(key, in.finishedAt, now)
			p.startContainer(ps, sb, rec)
		}
	}
	if wake != 0 {
		if ps.backoffTimer == nil {
			uid := ps.uid
			ps.backoffTimer = p.newTimer("kubelet-backoff", func() { p.enqueue(uid) })
		}
		ps.backoffTimer.Reset(wake.Sub(now))
	}
	return sb
}

func (p *process) startContainer(ps *podState, sb *sandbox, rec *record) {
	p.rt.start(sb, rec, parseApp(ps.pod.Annotations, p.rt.rnd))
}

// apiRestartBase reads, for a container the runtime has never run, what
// the API server's status says of its past: the restart count of its next
// start (continuing the count after a host crash), and its last
// termination (synthesised as ContainerStatusUnknown, exit 137, when it
// was running: the kubelet cannot know how it ended).
func apiRestartBase(pod *model.Pod, name string) (int, *model.ContainerStateTerminated) {
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		if cs.Name != name {
			continue
		}
		switch {
		case cs.State.Running != nil:
			return int(cs.RestartCount) + 1, &model.ContainerStateTerminated{ExitCode: exitSIGKILL,
				Reason:    "ContainerStatusUnknown",
				Message:   "The container could not be located when the pod was terminated",
				StartedAt: cs.State.Running.StartedAt}
		case cs.State.Terminated != nil:
			t := *cs.State.Terminated
			return int(cs.RestartCount) + 1, &t
		case cs.LastState.Terminated != nil:
			t := *cs.LastState.Terminated
			return int(cs.RestartCount) + 1, &t
		}
		return int(cs.RestartCount), nil
	}
	return 0, nil
}

// syncTerminating stops a deleted pod's containers gracefully
// (StopDeleted); once none runs, the pod is finalized: its final status is
// posted and it is deleted for good.
func (p *process) syncTerminating(ps *podState, sb *sandbox) {
	if ps.backoffTimer != nil {
		ps.backoffTimer.Stop()
	}
	all := true
	if sb != nil {
		grace := podGrace(ps.pod)
		for _, rec := range sb.records {
			if in := rec.cur; in != nil && in.state != stateExited {
				p.killContainer(ps.pod, containerSpec(ps.pod, rec.name), in, grace, spoketrace.StopDeleted, false)
				if in.state != stateExited {
					all = false
				}
			}
		}
	}
	ps.finalize = all
}
