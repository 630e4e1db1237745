// Package leaderelected is an example of a leader-elected controller
// tested with kubesim: three replicas of a controller that keeps the
// status of a custom resource, Tenant, elect a leader on a Lease as
// client-go's leaderelection does, and only the leader works. Run beside
// kubesim's API servers under API chaos, with faults aimed at whichever
// replica leads, it is judged by kubesim's leader-exclusivity check, given
// the controller's component and Lease, and by an invariant of its own
// over the final cluster state read from the trace. See docs/library.md.
package leaderelected

import "github.com/kubesim/kubesim/model"

// Namespace is where the Tenants and the controller's Lease live.
const Namespace = "default"

// TenantSpec is what a user asks of a Tenant: its quota.
type TenantSpec struct {
	Quota int32 `json:"quota"`
}

// TenantStatus is what the controller reports: the Tenant is Ready with
// the quota of the generation it observed.
type TenantStatus struct {
	Phase              string `json:"phase"`
	ObservedGeneration int64  `json:"observedGeneration"`
	Quota              int32  `json:"quota"`
}

// PhaseReady is the phase of a Tenant whose status is the controller's.
const PhaseReady = "Ready"

// Tenants is the custom kind, with the status subresource: a user's
// update cannot change the status, and the controller's status update
// cannot change the spec.
var Tenants = model.CustomResourceDefinition{
	Group: "example.com", Version: "v1", Kind: "Tenant", Plural: "tenants",
	Namespaced: true, StatusSubresource: true,
}

// NewTenant returns a Tenant named name with quota.
func NewTenant(name string, quota int32) *model.CustomObject {
	t := model.NewCustomObject(Tenants, Namespace, name)
	if err := t.SetSpec(TenantSpec{Quota: quota}); err != nil {
		panic(err) // a TenantSpec always encodes
	}
	return t
}

// want is the status the controller must give t.
func want(t *model.CustomObject) (TenantStatus, error) {
	spec, err := model.SpecAs[TenantSpec](t)
	if err != nil {
		return TenantStatus{}, err
	}
	return TenantStatus{Phase: PhaseReady, ObservedGeneration: t.Generation, Quota: spec.Quota}, nil
}
