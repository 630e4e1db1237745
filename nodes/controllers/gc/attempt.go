package gc

import (
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// processKey is attemptToDeleteItem for one dependent: done gets the error
// to retry on.
func (c *Controller) processKey(key string, done func(error)) {
	if c.stopped {
		return
	}
	finish := func(err error) {
		if !c.stopped {
			done(err)
		}
	}
	resource, objKey := splitKey(key)
	src, ok := c.source(resource)
	if !ok {
		finish(nil)
		return
	}
	cached, ok := src.inf.GetStore().GetByKey(objKey)
	if !ok || len(cached.GetObjectMeta().OwnerReferences) == 0 || cached.GetObjectMeta().DeletionTimestamp != nil {
		finish(nil) // gone, ownerless, or already being deleted
		return
	}
	m := cached.GetObjectMeta()
	rc := c.ctx.Client.Resource(resource, m.Namespace)
	// The informer may lag: decide on the object as it is now.
	rc.Get(m.Name, client.GetOptions{}, func(latest model.Object, err error) {
		if c.stopped {
			return
		}
		switch {
		case client.IsNotFound(err):
			finish(nil)
			return
		case err != nil:
			finish(err)
			return
		}
		lm := latest.GetObjectMeta()
		if lm.UID != m.UID || lm.DeletionTimestamp != nil || len(lm.OwnerReferences) == 0 {
			finish(nil) // a successor (its own events follow), or nothing to do
			return
		}
		c.classify(latest, func(solid, dangling []model.OwnerReference, err error) {
			if c.stopped {
				return
			}
			switch {
			case err != nil:
				finish(err)
			case len(dangling) == 0:
				finish(nil) // every owner is there
			case len(solid) > 0:
				c.dropReferences(rc, latest, dangling, finish)
			default:
				c.deleteDependent(rc, resource, latest, dangling, finish)
			}
		})
	})
}

func (c *Controller) source(resource string) (source, bool) {
	for _, s := range c.sources() {
		if s.resource == resource {
			return s, true
		}
	}
	return source{}, false
}

// classify splits obj's owner references into present (solid) and gone
// (dangling) owners, confirming each with a quorum GET unless the absent
// cache already knows it gone. An owner of a kind the cluster does not
// serve (neither built in nor one of the Context's custom kinds) is solid.
func (c *Controller) classify(obj model.Object, done func(solid, dangling []model.OwnerReference, err error)) {
	m := obj.GetObjectMeta()
	refs := m.OwnerReferences
	var solid, dangling []model.OwnerReference
	var next func(i int)
	next = func(i int) {
		if c.stopped {
			return
		}
		if i == len(refs) {
			done(solid, dangling, nil)
			return
		}
		r := refs[i]
		res, ok := c.ownerResource(r)
		switch {
		case c.absent[r.UID]:
			dangling = append(dangling, r)
			next(i + 1)
			return
		case !ok:
			solid = append(solid, r)
			next(i + 1)
			return
		}
		ns := ""
		if res.Namespaced {
			ns = m.Namespace
		}
		c.ctx.Client.Resource(res.Name, ns).Get(r.Name, client.GetOptions{}, func(owner model.Object, err error) {
			if c.stopped {
				return
			}
			switch {
			case client.IsNotFound(err):
				c.markAbsent(r.UID)
				dangling = append(dangling, r)
			case err != nil:
				done(nil, nil, err) // unsure: retry later
				return
			case owner.GetObjectMeta().UID != r.UID && !c.cfg.Ablations.Has(ablation.GCOwnerByName):
				c.markAbsent(r.UID) // the name now belongs to a successor
				dangling = append(dangling, r)
			default:
				solid = append(solid, r)
			}
			next(i + 1)
		})
	}
	next(0)
}

// deleteDependent deletes obj, an orphan of gone owners, on condition that
// it is still the same object (UID).
func (c *Controller) deleteDependent(rc *client.ResourceClient, resource string, obj model.Object, gone []model.OwnerReference, done func(error)) {
	m := obj.GetObjectMeta()
	opts := client.DeleteOptions{Preconditions: &apiwire.Preconditions{UID: m.UID}}
	rc.Delete(m.Name, opts, func(_ model.Object, err error) {
		if err == nil && !c.stopped {
			uids := make([]string, len(gone))
			for i, r := range gone {
				uids[i] = string(r.UID)
			}
			c.ctx.Host.Emit(&spoketrace.ControllerDelete{Controller: spoketrace.ControllerGarbageCollector, Owner: strings.Join(uids, ","),
				Resource: resource, Key: cache.MetaNamespaceKeyFunc(obj), UID: string(m.UID)})
		}
		if client.IsNotFound(err) || client.IsConflict(err) {
			err = nil // gone already, or a successor of the same name
		}
		done(err)
	})
}

// dropReferences removes the dangling references of obj, which keeps other
// owners, with an update on its resourceVersion (a conflict is retried).
func (c *Controller) dropReferences(rc *client.ResourceClient, obj model.Object, dangling []model.OwnerReference, done func(error)) {
	gone := map[model.UID]bool{} // looked up, never ranged
	for _, r := range dangling {
		gone[r.UID] = true
	}
	cp := obj.DeepCopyObject()
	m := cp.GetObjectMeta()
	var keep []model.OwnerReference
	for _, r := range m.OwnerReferences {
		if !gone[r.UID] {
			keep = append(keep, r)
		}
	}
	m.OwnerReferences = keep
	rc.Update(cp, func(_ model.Object, err error) {
		if client.IsNotFound(err) {
			err = nil
		}
		done(err)
	})
}
