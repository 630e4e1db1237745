package nodelifecycle

import (
	"reflect"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The pod condition the taint eviction controller adds before deleting.
const (
	// PodDisruptionTarget is the DisruptionTarget pod condition type.
	PodDisruptionTarget model.PodConditionType = "DisruptionTarget"
	// ReasonDeletionByTaintManager is its reason.
	ReasonDeletionByTaintManager = "DeletionByTaintManager"
)

// Deletion retries, as the real deletePodHandler.
const (
	evictionRetries    = 5
	evictionRetryDelay = 10 * time.Millisecond
)

// taintEviction is the taint eviction controller: it deletes the pods of
// nodes with NoExecute taints they do not tolerate (now) or tolerate for a
// while (when that runs out), as the real tainteviction.Controller. Its
// handlers act at once; the real one passes them through queues that
// workers drain at once.
type taintEviction struct {
	c *Controller
	// taintedNodes are the NoExecute taints of each node that has some.
	taintedNodes map[string][]model.Taint
	// work holds one scheduled deletion per pod key; a finished one stays,
	// so that it is not scheduled again, until cancelled.
	work map[string]*evictionWork
}

// evictionWork is a scheduled pod deletion, as a TimedWorker.
type evictionWork struct {
	createdAt model.Time
	fireAt    model.Time
	timer     *sim.Timer
	finished  bool
}

func newTaintEviction(c *Controller) *taintEviction {
	return &taintEviction{c: c, taintedNodes: map[string][]model.Taint{}, work: map[string]*evictionWork{}}
}

// register adds the handlers on nodes and pods.
func (e *taintEviction) register() {
	e.c.ctx.Nodes.AddEventHandler(cache.OnChange(e.handleNodeEvent))
	e.c.ctx.Pods.AddEventHandler(cache.OnChange(e.handlePodEvent))
}

// stop cancels every scheduled deletion.
func (e *taintEviction) stop() {
	for _, key := range sim.SortedKeys(e.work) {
		if w := e.work[key]; w.timer != nil {
			w.timer.Stop()
		}
	}
}

// noExecuteTaints returns the NoExecute taints of a node (nil for none).
func noExecuteTaints(node model.Object) []model.Taint {
	n, _ := node.(*model.Node)
	if n == nil {
		return nil
	}
	var out []model.Taint
	for _, t := range n.Spec.Taints {
		if t.Effect == model.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// handleNodeEvent reacts to a change of a node's NoExecute taints.
func (e *taintEviction) handleNodeEvent(oldObj, newObj model.Object) {
	if e.c.stopped {
		return
	}
	if oldObj != nil && newObj != nil && reflect.DeepEqual(noExecuteTaints(oldObj), noExecuteTaints(newObj)) {
		return
	}
	name := ""
	if oldObj != nil {
		name = oldObj.GetObjectMeta().Name
	}
	if newObj != nil {
		name = newObj.GetObjectMeta().Name
	}
	e.syncNode(name)
}

// syncNode records a node's NoExecute taints and (re)considers its pods,
// as handleNodeUpdate.
func (e *taintEviction) syncNode(name string) {
	obj, ok := e.c.ctx.Nodes.GetStore().GetByKey(name)
	if !ok {
		delete(e.taintedNodes, name)
		return
	}
	taints := noExecuteTaints(obj)
	if len(taints) == 0 {
		delete(e.taintedNodes, name)
	} else {
		e.taintedNodes[name] = taints
	}
	pods := e.c.podsOnNode(name)
	if len(taints) == 0 {
		for _, p := range pods {
			e.cancel(cache.MetaNamespaceKeyFunc(p))
		}
		return
	}
	now := e.c.now()
	for _, p := range pods {
		e.processPod(p, taints, now)
	}
}

// handlePodEvent reacts to a pod's creation, deletion, binding or change
// of tolerations, as PodUpdated and handlePodUpdate.
func (e *taintEviction) handlePodEvent(oldObj, newObj model.Object) {
	if e.c.stopped {
		return
	}
	oldPod, _ := oldObj.(*model.Pod)
	newPod, _ := newObj.(*model.Pod)
	if oldPod != nil && newPod != nil && oldPod.Spec.NodeName == newPod.Spec.NodeName &&
		reflect.DeepEqual(oldPod.Spec.Tolerations, newPod.Spec.Tolerations) {
		return
	}
	var key string
	if newPod != nil {
		key = cache.MetaNamespaceKeyFunc(newPod)
	} else if oldPod != nil {
		key = cache.MetaNamespaceKeyFunc(oldPod)
	}
	obj, ok := e.c.ctx.Pods.GetStore().GetByKey(key)
	if !ok {
		e.cancel(key)
		return
	}
	pod := obj.(*model.Pod)
	if pod.Spec.NodeName == "" {
		return
	}
	taints, ok := e.taintedNodes[pod.Spec.NodeName]
	if !ok {
		return
	}
	e.processPod(pod, taints, e.c.now())
}

// processPod schedules (or cancels) the deletion of a pod on a node with
// NoExecute taints, as processPodOnNode: a taint it does not tolerate
// deletes it now; otherwise the shortest tolerationSeconds of the
// tolerations used counts from now (or from when an earlier deletion was
// scheduled); tolerating forever cancels.
func (e *taintEviction) processPod(pod *model.Pod, taints []model.Taint, now model.Time) {
	key := cache.MetaNamespaceKeyFunc(pod)
	all, used := model.GetMatchingTolerations(taints, pod.Spec.Tolerations)
	if !all || e.c.cfg.Ablations.Has(ablation.EvictIgnoresToleration) {
		e.cancel(key)
		e.schedule(key, now, now)
		return
	}
	wait := model.GetMinTolerationTime(used)
	if wait < 0 {
		e.cancel(key)
		return
	}
	start, trigger := now, now.Add(wait)
	if w := e.work[key]; w != nil && !w.finished {
		start = w.createdAt
		if start.Add(wait).Before(trigger) {
			return
		}
		e.cancel(key)
	}
	e.schedule(key, start, trigger)
}

// schedule arms a deletion unless one exists for the pod (as AddWork).
func (e *taintEviction) schedule(key string, createdAt, fireAt model.Time) {
	if _, ok := e.work[key]; ok {
		return
	}
	w := &evictionWork{createdAt: createdAt, fireAt: fireAt}
	e.work[key] = w
	w.timer = e.c.h.After(max(fireAt.Sub(e.c.now()), 0), "taint-eviction", func() {
		if e.c.stopped || e.work[key] != w {
			return
		}
		w.timer = nil
		e.evict(key, func(err error) {
			if e.work[key] != w {
				return
			}
			if err != nil {
				delete(e.work, key)
				return
			}
			w.finished = true
		})
	})
}

// cancel drops a pod's scheduled (or finished) deletion.
func (e *taintEviction) cancel(key string) {
	w, ok := e.work[key]
	if !ok {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	delete(e.work, key)
}

// evict deletes a pod, retrying evictionRetries times evictionRetryDelay
// apart.
func (e *taintEviction) evict(key string, done func(error)) {
	ns, name := splitKey(key)
	attempts := 0
	var try func()
	try = func() {
		e.deletePod(ns, name, func(err error) {
			attempts++
			if err == nil || attempts >= evictionRetries {
				done(err)
				return
			}
			e.c.h.After(evictionRetryDelay, "taint-eviction-retry", func() {
				if !e.c.stopped {
					try()
				}
			})
		})
	}
	try()
}

// deletePod reads the pod, marks it DisruptionTarget and deletes it
// gracefully with a UID precondition, as addConditionAndDeletePod.
func (e *taintEviction) deletePod(ns, name string, done func(error)) {
	pods := e.c.ctx.Client.Pods(ns)
	pods.Get(name, client.GetOptions{}, e.c.guard(func(obj model.Object, err error) {
		if err != nil {
			done(err)
			return
		}
		pod := obj.(*model.Pod)
		del := func() {
			pods.Delete(name, client.DeleteOptions{Preconditions: &apiwire.Preconditions{UID: pod.UID}},
				e.c.guard(func(_ model.Object, err error) {
					if err == nil {
						e.c.ctx.Host.Emit(&spoketrace.ControllerDelete{Controller: spoketrace.ControllerTaintEviction,
							Resource: model.ResourcePodsName, Key: ns + "/" + name, UID: string(pod.UID)})
					}
					done(err)
				}))
		}
		cond := model.PodCondition{Type: PodDisruptionTarget, Status: model.ConditionTrue, Reason: ReasonDeletionByTaintManager,
			Message: "Taint manager: deleting due to NoExecute taint", LastTransitionTime: e.c.stamp()}
		if !model.SetPodCondition(&pod.Status, cond) {
			del()
			return
		}
		pods.UpdateStatus(pod, e.c.guard(func(_ model.Object, err error) {
			if err != nil {
				done(err)
				return
			}
			del()
		}))
	}))
}

// splitKey splits "namespace/name".
func splitKey(key string) (string, string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:]
		}
	}
	return "", key
}
