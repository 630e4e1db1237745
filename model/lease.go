package model

// Lease is a lightweight lock with a holder and an expiry, as
// coordinationv1.Lease (group "coordination.k8s.io", resource "leases",
// namespaced). Kubelets renew one per node (in kube-node-lease) as their
// heartbeat; leader election holds one per controller.
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       LeaseSpec `json:"spec"`
}

// LeaseSpec is a Lease's state, as coordinationv1.LeaseSpec.
type LeaseSpec struct {
	// HolderIdentity is the current holder.
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds a candidate waits after RenewTime before taking
	// the lease over.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *MicroTime `json:"acquireTime,omitempty"`
	// RenewTime is when the current holder last renewed it.
	RenewTime *MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
}

// Kind returns KindLease.
func (l *Lease) Kind() string { return KindLease }

// DeepCopyObject returns l.DeepCopy() as an Object.
func (l *Lease) DeepCopyObject() Object { return l.DeepCopy() }

// DeepCopyInto copies l into out, sharing no memory.
func (l *Lease) DeepCopyInto(out *Lease) { *out = *l.DeepCopy() }

// DeepCopy returns a copy of l that shares no memory with it.
func (l *Lease) DeepCopy() *Lease { return deepCopy(l) }

// copyRefsInto copies l's references into its shallow copy out (deepCopy).
func (l *Lease) copyRefsInto(out *Lease) {
	out.Spec = LeaseSpec{
		HolderIdentity:       clonePtr(l.Spec.HolderIdentity),
		LeaseDurationSeconds: clonePtr(l.Spec.LeaseDurationSeconds),
		AcquireTime:          clonePtr(l.Spec.AcquireTime),
		RenewTime:            clonePtr(l.Spec.RenewTime),
		LeaseTransitions:     clonePtr(l.Spec.LeaseTransitions),
	}
}

// NodeLeaseNamespace is where kubelets keep their node Leases.
const NodeLeaseNamespace = "kube-node-lease"
