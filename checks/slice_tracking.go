package checks

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// sliceTracking follows, from the trace, which EndpointSlices the leading
// controller manager's EndpointSlice controller has in its tracker: the
// slices it created or updated itself since it began to lead
// (endpointslice_tracker.go: Update is called for the controller's own
// writes only). The controller requeues a Service for a deleted slice
// only when its tracker has it (onEndpointSliceDelete: Has, then
// HandleDeletion), so a user's deletion of a slice an earlier leader
// wrote, and the current one has not rewritten, goes unrepaired until the
// Service or its pods change again: a promise kept by upstream's
// controller only for slices it tracks.
//
// A term of leadership, and the tracker with it, begins when a controller
// manager begins to lead (spoketrace.Leading: one that loses its Lease
// exits, and leads again only as a new process), when the controller
// manager's writes come from another identity, or when a fault hits a host
// that led. That over-counts
// terms (a fault that did not end the leadership ends a term here), so a
// deletion is taken as untracked in doubt: a check that uses it owes
// nothing it should not.
type sliceTracking struct {
	term      int
	leader    string // the identity of the controller manager's last write
	led       map[sim.HostID]bool
	writtenIn map[string]int  // slice key -> term of the controller's last create or update
	userDel   map[string]bool // slice keys a user (not the controller manager) deleted
	// byController: the last admitted write of each slice key was the
	// controller manager's.
	byController map[string]bool
}

func newSliceTracking() sliceTracking {
	return sliceTracking{term: 1, led: map[sim.HostID]bool{}, writtenIn: map[string]int{}, userDel: map[string]bool{},
		byController: map[string]bool{}}
}

// observe follows e.
func (t *sliceTracking) observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		if t.led[e.Host] {
			t.term++
		}
		return
	}
	switch d := e.Data.(type) {
	case *spoketrace.Leading:
		// A controller manager that begins to lead starts its
		// controllers afresh, with an empty tracker.
		if d.Component == "kube-controller-manager" && d.Leading {
			t.leader = d.Identity
			t.term++
			t.led[e.Host] = true
		}
	case *spoketrace.LeaderWrite:
		if d.Component != "kube-controller-manager" {
			return
		}
		if t.leader != d.Identity {
			t.leader = d.Identity
			t.term++
		}
		t.led[e.Host] = true
	case *apitrace.Admit:
		if d.Resource != model.ResourceEndpointSlicesName {
			return
		}
		t.byController[d.Key] = d.User == controllerManagerUser
		switch {
		case d.User != controllerManagerUser && d.Verb == "delete":
			t.userDel[d.Key] = true
		case d.User == controllerManagerUser && (d.Verb == "create" || d.Verb == "update"):
			t.writtenIn[d.Key] = t.term
			delete(t.userDel, d.Key)
		}
	}
}

// untrackedUserDelete reports whether the deletion of slice key that etcd
// just applied was a user's, of a slice the current controller has not
// written (so not in its tracker), and forgets the deletion.
func (t *sliceTracking) untrackedUserDelete(key string) bool {
	user := t.userDel[key]
	delete(t.userDel, key)
	term, ok := t.writtenIn[key]
	delete(t.writtenIn, key)
	return user && (!ok || term != t.term)
}

// controllerWrote reports whether the last admitted write of slice key
// was the controller manager's.
func (t *sliceTracking) controllerWrote(key string) bool { return t.byController[key] }
