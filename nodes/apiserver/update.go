package apiserver

import (
	"errors"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// update serves update and update-status. The object's resourceVersion is
// the precondition (409 Conflict when stale; empty: unconditional, retried
// internally). Update keeps the stored status; update-status keeps
// everything but the status.
func (s *Server) update(c *call) {
	obj, st := requestObject(c.req, c.res)
	if st != nil {
		c.fail(st)
		return
	}
	m := obj.GetObjectMeta()
	var precond int64
	statusOnly := c.req.Verb == apiwire.VerbUpdateStatus
	if m.ResourceVersion == "" && c.res.NoUnconditionalUpdate {
		// The generic registry's Update (k8s.io/apiserver
		// pkg/registry/generic/registry/store.go) refuses a version-less
		// update where the strategy does not AllowUnconditionalUpdate.
		c.fail(invalid(c.res, m.Name, errors.New("metadata.resourceVersion: Invalid value: 0x0: must be specified for an update")))
		return
	}
	if rv := m.ResourceVersion; rv != "" && !s.cfg.Ablations.Has(ablation.LastWriteWins) &&
		!(statusOnly && s.cfg.Ablations.Has(ablation.StatusLastWriteWins)) {
		v, ok := parseRV(rv)
		if !ok {
			c.fail(badRequest("invalid resourceVersion %q", rv))
			return
		}
		precond = v
	}
	if statusOnly && !hasStatusSubresource(c.res, obj) {
		c.fail(errStatus(404, apiwire.ReasonNotFound, "%s has no status subresource", c.res.Name))
		return
	}
	key := storageKey(c.res, m.Namespace, m.Name)
	s.guaranteedUpdate(c, key, precond, func(cur model.Object) (model.Object, *apiwire.Status) {
		if st := s.nodeRestriction(c.req, c.res, cur); st != nil {
			return nil, st
		}
		next := obj.DeepCopyObject()
		switch {
		case statusOnly && s.cfg.Ablations.Has(ablation.StatusWritesSpec):
			// The ablation: the whole body is stored.
		case statusOnly:
			out := cur.DeepCopyObject()
			copyStatus(out, next)
			next = out
		case !s.cfg.Ablations.Has(ablation.UpdateWritesStatus) && mainEndpointKeepsStatus(c.res):
			copyStatus(next, cur)
		}
		prepareForUpdate(next, cur, c.res, statusOnly)
		if st := admitUpdate(next, cur, c.res); st != nil {
			return nil, st
		}
		return next, nil
	})
}
