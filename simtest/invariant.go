package simtest

import (
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
)

// EveryCustomObject returns a check named name that judges, at the end of
// the run, every object of the custom kind def in namespace: judge says
// what is wrong with one ("" when nothing is), reading anything else it
// needs from s, the final state. Having no object to judge is an offense
// too, since a run whose workload never created one proves nothing. It
// is a clusterstate.Invariant: it reads the trace alone, so that a user's
// invariant over their own kind needs only a function of an object.
func EveryCustomObject(name string, def model.CustomResourceDefinition, namespace string, judge func(s clusterstate.Snapshot, obj *model.CustomObject) string) *clusterstate.InvariantCheck {
	return clusterstate.Invariant(name, func(h *clusterstate.History, r *checks.Recorder) {
		s := h.Final()
		objs := s.List(def.Plural, namespace)
		if len(objs) == 0 {
			r.Add(s.Event(), "no %s to judge", def.Kind)
		}
		for _, obj := range objs {
			if what := judge(s, obj.(*model.CustomObject)); what != "" {
				r.Add(s.Event(), "%s", what)
			}
		}
	})
}
