package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// TestNoExecuteTaintsAreTraced: each NoExecute taint the controller's
// acknowledged updates add or remove is traced (spoketrace.NodeTaint), so
// that the eviction-timing check can count the pods' tolerations from it;
// a failed update traces nothing.
func TestNoExecuteTaintsAreTraced(t *testing.T) {
	e := newEnv(t, 22, 3, Config{})
	var traced []spoketrace.NodeTaint
	e.W.Subscribe(func(ev *sim.Event) {
		if d, ok := ev.Data.(*spoketrace.NodeTaint); ok {
			traced = append(traced, *d)
		}
	})
	e.stopAfterRenewal("node-1")
	e.Run(70 * time.Second)
	o := e.observer()
	o.at(t, "node-1 "+unreachableNoExecute)
	want := []spoketrace.NodeTaint{{Node: "node-1", Taint: "node.kubernetes.io/unreachable:NoExecute", Added: true}}
	require.Equal(t, want, traced)

	e.Host("node-1").Restart()
	e.Run(30 * time.Second)
	require.False(t, taintExists(e.node("node-1").Spec.Taints, &unreachableTaint))
	want = append(want, spoketrace.NodeTaint{Node: "node-1", Taint: "node.kubernetes.io/unreachable:NoExecute"})
	require.Equal(t, want, traced)
}
