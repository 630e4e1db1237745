package scheduler

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// scheduleOne is one scheduling cycle, as ScheduleOne: pop the next pod,
// filter and score the nodes, assume the pod on the best one and bind it
// asynchronously (the binding cycle), so that the next cycle can start at
// once.
func (l *schedulingLoop) scheduleOne() {
	defer l.afterQueueChange()
	qp := l.queue.pop()
	if qp == nil {
		return
	}
	pod := qp.pod
	// skipPodSchedule: a pod being deleted, or one this scheduler already
	// assumed (an informer event showed it unbound again before the
	// binding was confirmed).
	if pod.DeletionTimestamp != nil || l.cache.isAssumed(pod.UID) {
		l.queue.done(qp)
		return
	}
	nodes := l.cache.nodeList()
	if len(nodes) == 0 {
		l.handleUnschedulable(qp, msgNoNodes)
		return
	}
	req := model.PodRequests(pod)
	var feasible []*nodeInfo
	reasons := map[string]int{}
	for _, n := range nodes {
		rs := filterNode(pod, req, n)
		if len(rs) == 0 {
			feasible = append(feasible, n)
			continue
		}
		for _, r := range rs {
			reasons[r]++
		}
	}
	if len(feasible) == 0 {
		l.handleUnschedulable(qp, fitErrorMessage(len(nodes), reasons))
		return
	}
	host := selectHost(pod, feasible, l.s.pick)
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = host
	l.cache.assumePod(assumed)
	l.bind(qp, assumed)
}

// handleUnschedulable parks a pod no node fits and records why in its
// PodScheduled condition.
func (l *schedulingLoop) handleUnschedulable(qp *queuedPod, msg string) {
	qp.msg = msg
	l.queue.addUnschedulable(qp)
	l.maybeUpdatePodScheduled(qp.pod, msg)
}

// maybeUpdatePodScheduled sets PodScheduled=False, reason Unschedulable,
// with msg, through update-status, only when that changes the condition
// (as the real updatePod, which skips a no-op). The real scheduler writes
// with a patch, which cannot conflict; kubesim's scheduler may only
// update-status, conditional on the informer's resourceVersion, so a write
// that lost a race is redone when the informer shows the pod without the
// condition (handlePodUpdate).
func (l *schedulingLoop) maybeUpdatePodScheduled(pod *model.Pod, msg string) {
	cp := pod.DeepCopy()
	cond := model.PodCondition{Type: model.PodScheduled, Status: model.ConditionFalse,
		Reason: model.PodReasonUnschedulable, Message: msg, LastTransitionTime: model.Time(l.h.WallClock())}
	if !model.SetPodCondition(&cp.Status, cond) {
		return
	}
	l.s.c.Pods(cp.Namespace).UpdateStatus(cp, func(model.Object, error) {})
}

// bind is the binding cycle: the pods/binding subresource. On 200 the
// binding is traced and the assumption kept until the informer shows the
// pod bound; on an error the assumption is forgotten (which, as a pod
// deletion, may let parked pods fit) and the pod requeued with backoff,
// except after 409 (already bound, or being deleted) or 404 (gone): those
// it drops and leaves to the informer.
func (l *schedulingLoop) bind(qp *queuedPod, assumed *model.Pod) {
	s := l.s
	s.c.Pods(assumed.Namespace).Bind(assumed.Name, assumed.Spec.NodeName, func(_ model.Object, err error) {
		if l.p.stopped {
			return
		}
		if err == nil {
			req := model.PodRequests(assumed)
			s.h.Emit(&spoketrace.Bound{Scheduler: s.cfg.Name, Pod: qp.key, UID: string(assumed.UID), Node: assumed.Spec.NodeName,
				CPU: int64(req[model.ResourceCPU]), Memory: int64(req[model.ResourceMemory])})
			var expires sim.Time
			if s.cfg.AssumedPodTTL > 0 {
				expires = s.h.Now().Add(s.cfg.AssumedPodTTL)
			}
			l.cache.finishBinding(assumed.UID, expires)
			l.maybeArmExpiry()
			l.queue.done(qp)
			l.afterQueueChange()
			return
		}
		l.cache.forgetPod(assumed.UID)
		if client.IsConflict(err) || client.IsNotFound(err) {
			l.queue.done(qp)
		} else {
			l.queue.addBackoff(qp)
		}
		l.moveAll()
	})
}
