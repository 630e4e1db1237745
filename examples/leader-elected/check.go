package leaderelected

import (
	"fmt"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/simtest"
)

// StatusCheckName names the invariant in reports.
const StatusCheckName = "tenant-status"

// NewStatusCheck is the example's invariant, read from the trace
// (simtest.EveryCustomObject): at the end of the run there are Tenants,
// and every one's status is Ready with the generation and quota of its
// spec. The leader replica must have caught up with every change, however
// often the faults moved the leadership.
func NewStatusCheck() checks.Check {
	return simtest.EveryCustomObject(StatusCheckName, Tenants, Namespace, func(_ clusterstate.Snapshot, t *model.CustomObject) string {
		return statusOffense(t)
	})
}

// statusOffense says how t's status falls short of its spec, or "" when
// it does not.
func statusOffense(t *model.CustomObject) string {
	st, err := want(t)
	if err != nil {
		return "Tenant " + t.Name + ": " + err.Error()
	}
	got, err := model.StatusAs[TenantStatus](t)
	switch {
	case err != nil:
		return "Tenant " + t.Name + ": status: " + err.Error()
	case got != st:
		return fmt.Sprintf("Tenant %s at generation %d has status %+v, want %+v", t.Name, t.Generation, got, st)
	}
	return ""
}
