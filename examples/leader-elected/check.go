package leaderelected

import (
	"fmt"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
)

// StatusCheckName names the invariant in reports.
const StatusCheckName = "tenant-status"

// NewStatusCheck is the example's invariant, read from the trace
// (clusterstate): at the end of the run there are Tenants, and every one's
// status is Ready with the generation and quota of its spec. The leader
// replica must have caught up with every change, however often the
// faults moved the leadership.
func NewStatusCheck() checks.Check {
	return clusterstate.Invariant(StatusCheckName, judgeStatus)
}

// judgeStatus judges the final state.
func judgeStatus(h *clusterstate.History, r *checks.Recorder) {
	s := h.Final()
	tenants := s.List(Tenants.Plural, Namespace)
	if len(tenants) == 0 {
		r.Add(s.Event(), "no Tenant to judge")
	}
	for _, obj := range tenants {
		for _, msg := range statusOffenses(obj.(*model.CustomObject)) {
			r.Add(s.Event(), "%s", msg)
		}
	}
}

// statusOffenses says how t's status falls short of its spec.
func statusOffenses(t *model.CustomObject) []string {
	st, err := want(t)
	if err != nil {
		return []string{"Tenant " + t.Name + ": " + err.Error()}
	}
	got, err := model.StatusAs[TenantStatus](t)
	switch {
	case err != nil:
		return []string{"Tenant " + t.Name + ": status: " + err.Error()}
	case got != st:
		return []string{fmt.Sprintf("Tenant %s at generation %d has status %+v, want %+v", t.Name, t.Generation, got, st)}
	}
	return nil
}
