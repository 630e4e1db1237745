package widgetoperator

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/model"
)

// TestReplicasOffense judges hand-built Widgets and Deployments: each way
// a Widget can be left unreconciled is an offense.
func TestReplicasOffense(t *testing.T) {
	w := NewWidget("a", 3)
	w.UID = "u1"
	other := NewWidget("a", 3)
	other.UID = "u0"
	dep := func(owner *model.CustomObject, replicas int32) *model.Deployment {
		return newDeployment(owner, replicas)
	}
	tests := []struct {
		name string
		d    *model.Deployment
		what string
	}{
		{"reconciled", dep(w, 3), ""},
		{"no deployment", nil, "Widget a (replicas 3) has no Deployment"},
		{"other owner", dep(other, 3), "Deployment a is not controlled by Widget a (u1)"},
		{"stale replicas", dep(w, 2), "Deployment a has 2 replicas, its Widget wants 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.what, replicasOffense(w, tc.d))
		})
	}
}
