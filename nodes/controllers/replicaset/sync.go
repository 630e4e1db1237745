package replicaset

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// syncReplicaSet is the controller's syncHandler for one key: claim the
// pods, manage the replicas when the expectations allow it, then write the
// status. done gets the error to retry on (nil: forget the key).
func (c *Controller) syncReplicaSet(key string, done func(error)) {
	c.syncs++
	obj, ok := c.ctx.ReplicaSets.Lister().Get(key)
	if !ok {
		c.exp.DeleteExpectations(key) // deleted: nothing to wait for
		done(nil)
		return
	}
	rs := obj.(*model.ReplicaSet)
	needsSync := c.cfg.Ablations.Has(ablation.NoExpectations) || c.exp.SatisfiedExpectations(key)
	selector, err := rs.Spec.Selector.AsSelector()
	if err != nil {
		done(nil) // an invalid selector will not heal by retrying
		return
	}
	// Every pod of the namespace, then the active ones: the ones a
	// ReplicaSet may count, claim, adopt or release.
	var all []*model.Pod
	for _, o := range c.ctx.Pods.Lister().ByNamespace(rs.Namespace).List(model.Everything()) {
		all = append(all, o.(*model.Pod))
	}
	active := model.FilterActivePods(all)
	if c.cfg.Ablations.Has(ablation.CountTerminating) {
		active = active[:0]
		for _, p := range all {
			if !model.IsPodTerminal(p) {
				active = append(active, p)
			}
		}
	}
	c.claimPods(rs, selector, active, func(claimed []*model.Pod, err error) {
		if c.stopped {
			return
		}
		if err != nil {
			done(err)
			return
		}
		if needsSync && rs.DeletionTimestamp == nil {
			c.manageReplicas(claimed, rs, func(manageErr error) {
				if !c.stopped {
					c.finishSync(key, rs, claimed, manageErr, done)
				}
			})
			return
		}
		c.finishSync(key, rs, claimed, nil, done)
	})
}

// finishSync writes the status computed from the claimed pods and requeues
// a ReplicaSet whose ready pods are not yet available.
func (c *Controller) finishSync(key string, rs *model.ReplicaSet, claimed []*model.Pod, manageErr error, done func(error)) {
	rs = rs.DeepCopy()
	status := calculateStatus(rs, claimed, manageErr, model.Time(c.ctx.Host.WallClock()))
	c.updateStatus(rs, status, func(updated *model.ReplicaSet, err error) {
		if c.stopped {
			return
		}
		if err != nil {
			done(err)
			return
		}
		replicas := model.Deref(updated.Spec.Replicas, 1)
		if manageErr == nil && updated.Spec.MinReadySeconds > 0 &&
			updated.Status.ReadyReplicas == replicas && updated.Status.AvailableReplicas != replicas {
			c.queue.AddAfter(key, time.Duration(updated.Spec.MinReadySeconds)*time.Second)
		}
		done(manageErr)
	})
}

// manageReplicas creates or deletes pods to bring the active pods of rs to
// spec.replicas, at most BurstReplicas at a time, setting expectations
// first.
func (c *Controller) manageReplicas(active []*model.Pod, rs *model.ReplicaSet, done func(error)) {
	key := cache.MetaNamespaceKeyFunc(rs)
	diff := len(active) - int(model.Deref(rs.Spec.Replicas, 1))
	switch {
	case diff < 0:
		n := min(-diff, c.cfg.BurstReplicas)
		// Expect them all before the first create: the informer may see a
		// pod before its create returns.
		c.exp.ExpectCreations(key, n)
		c.slowStartBatch(n, SlowStartInitialBatchSize, func(created func(error)) { c.createPod(rs, created) },
			func(successes int, err error) {
				// The creations that failed or were never tried will never
				// be observed: stop waiting for them (lowerExpectations).
				for i := successes; i < n; i++ {
					c.exp.CreationObserved(key)
				}
				done(err)
			})
	case diff > 0:
		n := min(diff, c.cfg.BurstReplicas)
		victims := getPodsToDelete(active, c.relatedPods(rs), n, model.Time(c.ctx.Host.WallClock()))
		keys := make([]string, len(victims))
		for i, p := range victims {
			keys[i] = cache.MetaNamespaceKeyFunc(p)
		}
		c.exp.ExpectDeletions(key, keys)
		c.deletePods(key, rs.UID, victims, done)
	default:
		done(nil)
	}
}

// SlowStartInitialBatchSize is controller.SlowStartInitialBatchSize.
const SlowStartInitialBatchSize = 1

// slowStartBatch calls fn count times in batches of growing size
// (initial, 2*initial, 4*initial, ...), each batch's calls at once, the
// next batch only once every call of the previous one succeeded. finished
// gets the number of successful calls and the first error, as
// controller.slowStartBatch: a failing batch stops the rest, so that a
// quota or admission refusal costs one call, not count.
func (c *Controller) slowStartBatch(count, initial int, fn func(done func(error)), finished func(successes int, err error)) {
	successes, remaining := 0, count
	var batch func(size int)
	batch = func(size int) {
		if size <= 0 {
			finished(successes, nil)
			return
		}
		pending := size
		var errs []error
		for i := 0; i < size; i++ {
			called := false
			fn(func(err error) {
				if called || c.stopped {
					return
				}
				called = true
				if err != nil {
					errs = append(errs, err)
				}
				pending--
				if pending > 0 {
					return
				}
				successes += size - len(errs)
				if len(errs) > 0 {
					finished(successes, errs[0])
					return
				}
				remaining -= size
				batch(min(2*size, remaining))
			})
		}
	}
	batch(min(remaining, initial))
}

// deletePods deletes victims at once; done gets the first error once every
// delete answered. A failed delete will never be observed, so its
// expectation is lowered; NotFound is no error (someone else deleted it).
func (c *Controller) deletePods(key string, ownerUID model.UID, victims []*model.Pod, done func(error)) {
	pending := len(victims)
	var first error
	for _, p := range victims {
		podKey := cache.MetaNamespaceKeyFunc(p)
		c.ctx.Client.Pods(p.Namespace).Delete(p.Name, client.DeleteOptions{}, func(_ model.Object, err error) {
			if c.stopped {
				return
			}
			if err == nil {
				c.ctx.Host.Emit(&spoketrace.ControllerDelete{Controller: spoketrace.ControllerReplicaSet, Owner: string(ownerUID),
					Resource: model.ResourcePodsName, Key: podKey, UID: string(p.UID)})
			}
			if err != nil {
				c.exp.DeletionObserved(key, podKey)
				if !client.IsNotFound(err) && first == nil {
					first = err
				}
			}
			pending--
			if pending == 0 {
				done(first)
			}
		})
	}
}
