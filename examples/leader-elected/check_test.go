package leaderelected

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
)

// TestStatusOffenses: the invariant accepts a Tenant whose status is its
// spec's, at its generation, and names each way of falling short.
func TestStatusOffenses(t *testing.T) {
	tenant := func(quota int32, gen int64, status *TenantStatus) *model.CustomObject {
		o := NewTenant("acme", quota)
		o.Generation = gen
		if status != nil {
			require.NoError(t, o.SetStatus(*status))
		}
		return o
	}
	for _, tc := range []struct {
		name string
		obj  *model.CustomObject
		want string
	}{
		{"current", tenant(3, 2, &TenantStatus{Phase: PhaseReady, ObservedGeneration: 2, Quota: 3}), ""},
		{"no status yet", tenant(3, 1, nil), "has status {Phase: ObservedGeneration:0 Quota:0}"},
		{"an old generation", tenant(3, 2, &TenantStatus{Phase: PhaseReady, ObservedGeneration: 1, Quota: 3}), "ObservedGeneration:1"},
		{"an old quota", tenant(3, 2, &TenantStatus{Phase: PhaseReady, ObservedGeneration: 2, Quota: 2}), "Quota:2}, want"},
		{"not ready", tenant(3, 2, &TenantStatus{Phase: "Pending", ObservedGeneration: 2, Quota: 3}), "Phase:Pending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := statusOffense(tc.obj)
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, tc.want)
		})
	}
}
