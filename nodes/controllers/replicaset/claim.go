package replicaset

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// claimPods is the PodControllerRefManager's ClaimPods for rs, one pod
// after the other: it returns the active pods rs controls and that match
// its selector, after adopting matching orphans and releasing controlled
// pods that no longer match. done gets the claimed pods and the first
// adoption or release error (the sync then fails and is retried).
func (c *Controller) claimPods(rs *model.ReplicaSet, sel model.Selector, pods []*model.Pod, done func([]*model.Pod, error)) {
	var claimed []*model.Pod
	var firstErr error
	adoptable := &adoptCheck{}
	var next func(i int)
	next = func(i int) {
		if c.stopped {
			return
		}
		if i == len(pods) {
			done(claimed, firstErr)
			return
		}
		pod := pods[i]
		c.claimPod(rs, sel, pod, adoptable, func(ok bool, err error) {
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if ok {
				claimed = append(claimed, pod)
			}
			next(i + 1)
		})
	}
	next(0)
}

// claimPod is ClaimObject for one pod: done gets whether rs owns it now.
func (c *Controller) claimPod(rs *model.ReplicaSet, sel model.Selector, pod *model.Pod, adoptable *adoptCheck, done func(bool, error)) {
	match := sel.Matches(pod.Labels)
	if ref := model.GetControllerOf(pod); ref != nil {
		switch {
		case ref.UID != rs.UID && c.cfg.Ablations.Has(ablation.ReplicaSetAdoptsOwned) && match &&
			rs.DeletionTimestamp == nil && pod.DeletionTimestamp == nil && pod.Namespace == rs.Namespace:
			c.adoptPod(rs, pod, adoptable, func(err error) { done(err == nil, err) }) // the ablation: take it
		case ref.UID != rs.UID:
			done(false, nil) // someone else's
		case match:
			done(true, nil) // ours
		case rs.DeletionTimestamp != nil:
			done(false, nil) // no releasing while being deleted
		default:
			c.releasePod(rs, pod, func(err error) { done(false, err) })
		}
		return
	}
	// An orphan: adopt it if it matches and neither side is going away.
	if rs.DeletionTimestamp != nil || !match || pod.DeletionTimestamp != nil || pod.Namespace != rs.Namespace {
		done(false, nil)
		return
	}
	c.adoptPod(rs, pod, adoptable, func(err error) {
		switch {
		case err == nil:
			done(true, nil)
		case client.IsNotFound(err):
			done(false, nil)
		default:
			done(false, err)
		}
	})
}

// adoptCheck is canAdoptOnce: one quorum read of the ReplicaSet per claim,
// before the first adoption (RecheckDeletionTimestamp): an informer's
// ReplicaSet may be gone or being deleted already (kubernetes#42639).
type adoptCheck struct {
	checked bool
	err     error
}

func (c *Controller) canAdopt(rs *model.ReplicaSet, a *adoptCheck, done func(error)) {
	if a.checked {
		done(a.err)
		return
	}
	c.ctx.Client.ReplicaSets(rs.Namespace).Get(rs.Name, client.GetOptions{}, func(obj model.Object, err error) {
		if c.stopped {
			return
		}
		a.checked = true
		switch {
		case err != nil:
			a.err = err
		case obj.GetObjectMeta().UID != rs.UID:
			a.err = fmt.Errorf("original ReplicaSet %s/%s is gone: got uid %s, wanted %s", rs.Namespace, rs.Name, obj.GetObjectMeta().UID, rs.UID)
		case obj.GetObjectMeta().DeletionTimestamp != nil:
			a.err = fmt.Errorf("%s/%s has just been deleted at %v", rs.Namespace, rs.Name, *obj.GetObjectMeta().DeletionTimestamp)
		}
		done(a.err)
	})
}

// adoptPod makes rs the pod's controller: an Update adding the
// controllerRef, conditional on the informer's resourceVersion.
func (c *Controller) adoptPod(rs *model.ReplicaSet, pod *model.Pod, a *adoptCheck, done func(error)) {
	c.canAdopt(rs, a, func(err error) {
		if err != nil {
			done(fmt.Errorf("can't adopt Pod %s/%s (%s): %w", pod.Namespace, pod.Name, pod.UID, err))
			return
		}
		cp := pod.DeepCopy()
		if c.cfg.Ablations.Has(ablation.ReplicaSetAdoptsOwned) {
			// The ablation: the other controller's reference goes.
			cp.OwnerReferences = slices.DeleteFunc(cp.OwnerReferences, func(r model.OwnerReference) bool { return model.Deref(r.Controller, false) })
		}
		cp.OwnerReferences = append(cp.OwnerReferences, *model.NewControllerRef(rs, model.KindReplicaSet))
		c.ctx.Client.Pods(pod.Namespace).Update(cp, func(_ model.Object, err error) {
			if !c.stopped {
				done(err)
			}
		})
	})
}

// releasePod removes rs's references from the pod: an Update conditional on
// the informer's resourceVersion. A pod gone, or already without them, is
// no error (ReleasePod ignores NotFound and Invalid).
func (c *Controller) releasePod(rs *model.ReplicaSet, pod *model.Pod, done func(error)) {
	cp := pod.DeepCopy()
	var refs []model.OwnerReference
	for _, r := range cp.OwnerReferences {
		if r.UID != rs.UID {
			refs = append(refs, r)
		}
	}
	cp.OwnerReferences = refs
	c.ctx.Client.Pods(pod.Namespace).Update(cp, func(_ model.Object, err error) {
		if c.stopped {
			return
		}
		if client.IsNotFound(err) || client.IsInvalid(err) {
			err = nil
		}
		done(err)
	})
}
