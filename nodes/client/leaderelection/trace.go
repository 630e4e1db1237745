package leaderelection

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Tracer traces one replica of a leader-elected component as the
// leader-exclusivity check (checks.LeaderExclusivity) reads it: when it
// starts and stops leading, each renewal of its Lease, and each write that
// only a leader makes, as it leaves. kube-scheduler and
// kube-controller-manager trace themselves with it, and so can a
// controller of a user's own: give the check the component's name and
// Lease, and it judges the replicas on client-go's guarantee.
type Tracer struct {
	h                          *sim.Host
	component, identity, lease string
	leading                    bool
}

// NewTracer returns the tracer of replica identity of component on h,
// whose election holds the Lease lease ("namespace/name").
func NewTracer(h *sim.Host, component, identity, lease string) *Tracer {
	return &Tracer{h: h, component: component, identity: identity, lease: lease}
}

// Leading traces a change of leadership (spoketrace.Leading); a call that
// changes nothing traces nothing.
func (t *Tracer) Leading(leading bool) {
	if leading == t.leading {
		return
	}
	t.leading = leading
	t.h.Emit(&spoketrace.Leading{Component: t.component, Identity: t.identity, Leading: leading})
}

// Renewed traces a renewal of the Lease (spoketrace.LeaderRenewed): the
// renew deadline runs from it. It is an OnRenewed callback.
func (t *Tracer) Renewed() {
	t.h.Emit(&spoketrace.LeaderRenewed{Component: t.component, Identity: t.identity})
}

// Write traces a write request as a leader's (spoketrace.LeaderWrite),
// unless it is a write of the election's own Lease. It is a
// client.Config.OnWrite hook for the client the component's leader-only
// work uses.
func (t *Tracer) Write(req *apiwire.Request) {
	key := client.RequestKey(req)
	if req.Resource == model.ResourceLeasesName && key == t.lease {
		return
	}
	t.h.Emit(&spoketrace.LeaderWrite{Component: t.component, Identity: t.identity, Verb: string(req.Verb),
		Resource: req.Resource, Key: key})
}
