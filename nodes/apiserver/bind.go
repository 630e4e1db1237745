package apiserver

import (
	"fmt"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// bind serves the pods/binding subresource: it sets spec.nodeName once and
// the PodScheduled condition, with a Txn on mod_revision. A pod already
// bound, or being deleted, gets 409 Conflict, unless the
// BindNoConflictCheck ablation is on: then it is (re)bound regardless.
func (s *Server) bind(c *call) {
	if c.res.Name != model.ResourcePodsName {
		c.fail(errStatus(404, apiwire.ReasonNotFound, "%s have no binding subresource", c.res.Name))
		return
	}
	if c.req.NodeName == "" {
		c.fail(invalid(c.res, c.req.Name, fmt.Errorf("target.name: Required value")))
		return
	}
	key := storageKey(c.res, c.req.Namespace, c.req.Name)
	s.guaranteedUpdate(c, key, 0, func(cur model.Object) (model.Object, *apiwire.Status) {
		pod := cur.(*model.Pod)
		switch {
		case s.cfg.Ablations.Has(ablation.BindNoConflictCheck):
			// scheduler-no-conflict-check: overwrite whatever is there.
		case pod.DeletionTimestamp != nil:
			return nil, bindConflict(pod.Name, fmt.Sprintf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
		case pod.Spec.NodeName != "":
			return nil, bindConflict(pod.Name, fmt.Sprintf("pod %s is already assigned to node %q", pod.Name, pod.Spec.NodeName))
		}
		pod.Spec.NodeName = c.req.NodeName
		now := model.Time(s.h.WallClock())
		model.SetPodCondition(&pod.Status, model.PodCondition{Type: model.PodScheduled, Status: model.ConditionTrue,
			LastProbeTime: now, LastTransitionTime: now})
		return pod, nil
	})
}

// bindConflict is 409 Conflict on pods/binding.
func bindConflict(name, msg string) *apiwire.Status {
	return errStatus(409, apiwire.ReasonConflict, "Operation cannot be fulfilled on pods/binding %q: %s", name, msg)
}
