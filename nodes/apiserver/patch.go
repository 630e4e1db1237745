package apiserver

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// patch applies a JSON merge patch to the current object and writes it
// with a Txn on mod_revision, retrying internally on conflict. A
// resourceVersion in the patch is a precondition. Like update, it keeps
// the stored status (k8s.io/apiserver, pkg/endpoints/handlers/patch.go
// applies the patch to the current object inside GuaranteedUpdate; the
// resource's strategy then resets the status).
func (s *Server) patch(c *call) {
	if len(c.req.Patch) == 0 {
		c.fail(badRequest("the body of a patch must not be empty"))
		return
	}
	ns, name := requestNamespace(c.req, c.res), requestName(c.req)
	key := storageKey(c.res, ns, name)
	s.guaranteedUpdate(c, key, 0, func(cur model.Object) (model.Object, *apiwire.Status) {
		if st := s.nodeRestriction(c.req, c.res, cur); st != nil {
			return nil, st
		}
		doc, err := model.Encode(cur)
		if err != nil {
			return nil, internalError(err)
		}
		merged, err := mergePatch(doc, c.req.Patch, s.cfg.Ablations.Has(ablation.MergePatchReplacesMaps))
		if err != nil {
			return nil, badRequest("invalid merge patch: %v", err)
		}
		next, err := model.Decode(merged)
		if err != nil {
			return nil, badRequest("the patched object cannot be decoded: %v", err)
		}
		if next.Kind() != c.res.Kind {
			return nil, badRequest("a patch cannot change the kind of %s %q", c.res.Kind, name)
		}
		nm, cm := next.GetObjectMeta(), cur.GetObjectMeta()
		if nm.ResourceVersion != "" && nm.ResourceVersion != cm.ResourceVersion &&
			!s.cfg.Ablations.Has(ablation.LastWriteWins) && !s.cfg.Ablations.Has(ablation.PatchIgnoresResourceVersion) {
			return nil, conflict(c.res, name)
		}
		// A patch of the object is an update: the stored status stays, as
		// the strategy's PrepareForUpdate keeps it.
		// (A custom kind without the status subresource has no stored
		// status to keep: its status is an ordinary field.)
		if mainEndpointKeepsStatus(c.res) {
			copyStatus(next, cur)
		}
		prepareForUpdate(next, cur, c.res, false)
		if st := admitUpdate(next, cur, c.res); st != nil {
			return nil, st
		}
		return next, nil
	})
}
