package sim_test

import (
	"testing"

	"github.com/kubesim/kubesim/sim"
)

// TestNodeData checks that only a KindNode event hands out its Data: a
// fault event's FaultDetail and a kernel event without Data give nil.
func TestNodeData(t *testing.T) {
	n, f := note{What: "hello", N: 1}, &sim.FaultDetail{Process: "kubelet"}
	for _, tc := range []struct {
		name string
		ev   sim.Event
		want sim.Data
	}{
		{"node", sim.Event{Kind: sim.KindNode, Data: n}, n},
		{"node without data", sim.Event{Kind: sim.KindNode}, nil},
		{"fault with detail", sim.Event{Kind: sim.KindFault, Name: "restart-process", Data: f}, nil},
		{"send", sim.Event{Kind: sim.KindSend}, nil},
		{"timer", sim.Event{Kind: sim.KindTimer, Name: "tick"}, nil},
	} {
		if got := tc.ev.NodeData(); got != tc.want {
			t.Errorf("%s: NodeData() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
