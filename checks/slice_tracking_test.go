package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestSliceTracking: a user's deletion is untracked unless the leading
// controller manager created or updated the slice in its current term;
// another leader, or a fault on a host that led, starts a new term.
func TestSliceTracking(t *testing.T) {
	const cm1, cm2 sim.HostID = 7, 8
	lead := func(h sim.HostID, id string) *sim.Event {
		return &sim.Event{Host: h, Kind: sim.KindNode, Data: &spoketrace.LeaderWrite{Component: "kube-controller-manager", Identity: id, Verb: "update", Resource: "leases"}}
	}
	admit := func(user, verb, key string) *sim.Event {
		return &sim.Event{Kind: sim.KindNode, Data: &apitrace.Admit{User: user, Verb: verb, Resource: model.ResourceEndpointSlicesName, Key: key}}
	}
	leading := func(h sim.HostID, id string) *sim.Event {
		return &sim.Event{Host: h, Kind: sim.KindNode, Data: &spoketrace.Leading{Component: "kube-controller-manager", Identity: id, Leading: true}}
	}
	fault := func(h sim.HostID) *sim.Event {
		return &sim.Event{Host: h, Kind: sim.KindFault, Name: string(sim.FaultRestartProcess)}
	}
	const key = "default/web-1"
	cases := []struct {
		name      string
		evs       []*sim.Event
		untracked bool
	}{
		{"written by the leader, deleted by a user", []*sim.Event{lead(cm1, "cm-1"), admit(controllerManagerUser, "create", key), admit("admin", "delete", key)}, false},
		{"written by an earlier leader", []*sim.Event{lead(cm1, "cm-1"), admit(controllerManagerUser, "create", key), lead(cm2, "cm-2"), admit("admin", "delete", key)}, true},
		{"rewritten by the new leader", []*sim.Event{lead(cm1, "cm-1"), admit(controllerManagerUser, "create", key), lead(cm2, "cm-2"),
			admit(controllerManagerUser, "update", key), admit("admin", "delete", key)}, false},
		{"its leader restarted since", []*sim.Event{lead(cm1, "cm-1"), admit(controllerManagerUser, "create", key), fault(cm1), admit("admin", "delete", key)}, true},
		{"a fault on a host that never led", []*sim.Event{lead(cm1, "cm-1"), admit(controllerManagerUser, "create", key), fault(cm2), admit("admin", "delete", key)}, false},
		{"its leader lost its Lease and leads again", []*sim.Event{leading(cm1, "cm-1"), lead(cm1, "cm-1"), admit(controllerManagerUser, "create", key),
			leading(cm1, "cm-1"), lead(cm1, "cm-1"), admit("admin", "delete", key)}, true},
		{"never written by a controller", []*sim.Event{lead(cm1, "cm-1"), admit("admin", "delete", key)}, true},
		{"deleted by the controller itself", []*sim.Event{lead(cm1, "cm-1"), lead(cm2, "cm-2"), admit(controllerManagerUser, "delete", key)}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := newSliceTracking()
			for _, e := range tc.evs {
				tr.observe(e)
			}
			require.Equal(t, tc.untracked, tr.untrackedUserDelete(key))
		})
	}
}
