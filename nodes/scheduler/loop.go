package scheduler

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
)

// schedulingLoop is what a leading process runs: the pod and node
// informers feeding the scheduling queue and the scheduler cache, and the
// scheduling cycle that takes one pod at a time from the queue.
type schedulingLoop struct {
	p      *instance
	s      *Scheduler
	h      *sim.Host
	queue  *schedulingQueue
	cache  *schedCache
	pods   *cache.Informer
	nodes  *cache.Informer
	synced bool

	cycleTimer, backoffTimer, unschedTimer, syncTimer, expireTimer *sim.Timer
}

func newSchedulingLoop(p *instance) *schedulingLoop {
	s := p.s
	l := &schedulingLoop{p: p, s: s, h: s.h, cache: newSchedCache(s.cfg.Ablations.Has(ablation.SchedulerIgnoresAssumed))}
	l.queue = newSchedulingQueue(s.cfg, s.h.Now)
	l.cycleTimer = l.newTimer("scheduler-cycle", l.scheduleOne)
	l.backoffTimer = l.newTimer("scheduler-flush-backoff", l.handleFlushBackoff)
	l.unschedTimer = l.newTimer("scheduler-flush-unschedulable", l.handleFlushUnschedulable)
	l.syncTimer = l.newTimer("scheduler-wait-sync", l.handleWaitForSync)
	l.expireTimer = l.newTimer("scheduler-expire-assumed", l.handleExpireAssumed)
	l.pods = cache.NewInformer(s.c, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: model.ResourcePodsName}})
	l.nodes = cache.NewInformer(s.c, cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: model.ResourceNodesName}})
	l.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: l.handlePodAdd, UpdateFunc: l.handlePodUpdate, DeleteFunc: l.handlePodDelete,
	})
	l.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: l.handleNodeAdd, UpdateFunc: l.handleNodeUpdate, DeleteFunc: l.handleNodeDelete,
	})
	return l
}

// newTimer makes a timer whose callback does nothing once the process
// stopped.
func (l *schedulingLoop) newTimer(name string, fn func()) *sim.Timer {
	return l.h.NewTimer(name, func() {
		if !l.p.stopped {
			fn()
		}
	})
}

// run starts the informers and waits for their first lists, as
// WaitForCacheSync, before the first scheduling cycle.
func (l *schedulingLoop) run() {
	l.pods.Run()
	l.nodes.Run()
	l.syncTimer.Reset(cacheSyncPollInterval)
}

// stop ends everything.
func (l *schedulingLoop) stop() {
	l.pods.Stop()
	l.nodes.Stop()
	for _, t := range []*sim.Timer{l.cycleTimer, l.backoffTimer, l.unschedTimer, l.syncTimer, l.expireTimer} {
		t.Stop()
	}
}

func (l *schedulingLoop) handleWaitForSync() {
	if !l.pods.HasSynced() || !l.nodes.HasSynced() {
		l.syncTimer.Reset(cacheSyncPollInterval)
		return
	}
	l.synced = true
	l.afterQueueChange()
}

// afterQueueChange arms what the queue's state calls for: a scheduling
// cycle while pods are active, the periodic flushes while pods back off or
// are parked.
func (l *schedulingLoop) afterQueueChange() {
	if l.p.stopped {
		return
	}
	if l.queue.backoffLen() > 0 && !l.backoffTimer.Armed() {
		l.backoffTimer.Reset(backoffFlushInterval)
	}
	if l.queue.unschedulableLen() > 0 && !l.unschedTimer.Armed() {
		l.unschedTimer.Reset(UnschedulableFlushInterval)
	}
	if l.synced && l.queue.activeLen() > 0 && !l.cycleTimer.Armed() {
		l.cycleTimer.Reset(0)
	}
}

func (l *schedulingLoop) handleFlushBackoff() {
	l.queue.flushBackoffCompleted()
	l.afterQueueChange()
}

func (l *schedulingLoop) handleFlushUnschedulable() {
	l.queue.flushUnschedulableLeftover()
	l.afterQueueChange()
}

// handleExpireAssumed is cleanupAssumedPods, which the real cache runs
// every second; here it runs only while an assumption can expire (a
// positive AssumedPodTTL).
func (l *schedulingLoop) handleExpireAssumed() {
	if l.cache.expireAssumed(l.h.Now()) {
		l.moveAll()
	}
	l.maybeArmExpiry()
}

// maybeArmExpiry arms the cleanup while an assumption can expire.
func (l *schedulingLoop) maybeArmExpiry() {
	if l.cache.hasExpiring() && !l.expireTimer.Armed() {
		l.expireTimer.Reset(assumedCleanupInterval)
	}
}

// moveAll retries the unschedulable pods after a cluster event.
func (l *schedulingLoop) moveAll() {
	l.queue.moveAllToActiveOrBackoff()
	l.afterQueueChange()
}

// responsible reports a pod this scheduler should schedule: unassigned,
// of its profile, not being deleted and not terminal (the real informer's
// field selector leaves terminal pods out).
func (l *schedulingLoop) responsible(pod *model.Pod) bool {
	name := pod.Spec.SchedulerName
	return pod.Spec.NodeName == "" && (name == "" || name == l.s.cfg.SchedulerName) &&
		pod.DeletionTimestamp == nil && !model.IsPodTerminal(pod)
}

func (l *schedulingLoop) handlePodAdd(obj model.Object) {
	pod, ok := obj.(*model.Pod)
	if !ok || l.p.stopped {
		return
	}
	switch {
	case pod.Spec.NodeName != "":
		l.queue.delete(model.KeyOf(pod).String())
		if !model.IsPodTerminal(pod) {
			l.cache.setPod(pod)
		}
	case l.responsible(pod):
		l.queue.add(pod)
	}
	l.afterQueueChange()
}

func (l *schedulingLoop) handlePodUpdate(_, obj model.Object) {
	pod, ok := obj.(*model.Pod)
	if !ok || l.p.stopped {
		return
	}
	key := model.KeyOf(pod).String()
	switch {
	case pod.Spec.NodeName != "":
		// Bound (by us or anyone): it leaves the queue and counts on its
		// node; a terminal pod leaves the informer (its field selector) and
		// frees its resources, as a deletion.
		l.queue.delete(key)
		if model.IsPodTerminal(pod) {
			l.handleAssignedPodGone(pod.UID)
			return
		}
		l.cache.setPod(pod)
	case l.responsible(pod):
		l.queue.update(pod)
		if qp := l.queue.get(key); qp != nil && qp.where == inUnschedulable {
			l.maybeUpdatePodScheduled(pod, qp.msg)
		}
	default:
		l.queue.delete(key) // being deleted, terminal, or not ours
	}
	l.afterQueueChange()
}

func (l *schedulingLoop) handlePodDelete(obj any) {
	pod, ok := cache.ObjectOf(obj).(*model.Pod)
	if !ok || l.p.stopped {
		return
	}
	l.queue.delete(model.KeyOf(pod).String())
	l.handleAssignedPodGone(pod.UID)
}

// handleAssignedPodGone frees a pod's resources and, as the real
// AssignedPodDelete event, retries the unschedulable pods.
func (l *schedulingLoop) handleAssignedPodGone(uid model.UID) {
	if _, ok := l.cache.pods[uid]; !ok {
		l.afterQueueChange()
		return
	}
	l.cache.removePod(uid)
	l.moveAll()
}

func (l *schedulingLoop) handleNodeAdd(obj model.Object) {
	node, ok := obj.(*model.Node)
	if !ok || l.p.stopped {
		return
	}
	l.cache.setNode(node)
	l.moveAll()
}

func (l *schedulingLoop) handleNodeUpdate(oldObj, obj model.Object) {
	node, ok := obj.(*model.Node)
	old, okOld := oldObj.(*model.Node)
	if !ok || !okOld || l.p.stopped {
		return
	}
	l.cache.setNode(node)
	if nodeSchedulingPropertiesChanged(old, node) {
		l.moveAll()
	}
}

func (l *schedulingLoop) handleNodeDelete(obj any) {
	node, ok := cache.ObjectOf(obj).(*model.Node)
	if !ok || l.p.stopped {
		return
	}
	l.cache.removeNode(node.Name)
}
