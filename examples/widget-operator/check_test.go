package widgetoperator

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/sim"
)

// TestReplicasCheck judges hand-built final states: each way a Widget can
// be left unreconciled is an offense, and a run without a state fails.
func TestReplicasCheck(t *testing.T) {
	w := Owned{Name: "a", Replicas: 3, UID: "u1"}
	tests := []struct {
		name  string
		state *WidgetState
		ok    bool
		what  string
	}{
		{"no state", nil, false, ""},
		{"reconciled", &WidgetState{Widgets: []Owned{w}, Deployments: []Owned{w}}, true, ""},
		{"no deployment", &WidgetState{Widgets: []Owned{w}}, false, "Widget a (replicas 3) has no Deployment"},
		{"other owner", &WidgetState{Widgets: []Owned{w}, Deployments: []Owned{{Name: "a", Replicas: 3, UID: "u0"}}}, false, `Deployment a is controlled by "u0", not by Widget a (u1)`},
		{"stale replicas", &WidgetState{Widgets: []Owned{w}, Deployments: []Owned{{Name: "a", Replicas: 2, UID: "u1"}}}, false, "Deployment a has 2 replicas, its Widget wants 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &ReplicasCheck{}
			c.Observe(&sim.Event{Kind: sim.KindNode, Data: &WidgetState{}}) // an earlier state is replaced
			if tc.state != nil {
				c.Observe(&sim.Event{Kind: sim.KindNode, Seq: 7, Data: tc.state})
			} else {
				c = &ReplicasCheck{}
			}
			r := c.Finish()
			assert.Equal(t, tc.ok, r.OK, r.Detail)
			if tc.what != "" {
				assert.Equal(t, tc.what, r.Offenses[0].What)
				assert.Equal(t, uint64(7), r.Offenses[0].Seq)
			}
		})
	}
}
