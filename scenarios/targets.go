package scenarios

// TargetName is a fault target that names hosts by role rather than by
// name, resolved when the fault fires (so "etcd-leader" is whoever leads
// then). The reference page of fault schedules (docs/faults.md) is
// generated from TargetNames, and a test resolves each in a world of its
// layer.
type TargetName struct {
	Name string
	// Layer is the lowest layer (Spec.Layer) whose worlds know the name.
	Layer string
	Means string
}

// TargetNames lists the role names fault schedules may target, besides
// host names and "*" (every host).
func TargetNames() []TargetName {
	return []TargetName{
		{"etcd", "etcd", "every etcd member"},
		{"etcd-leader", "etcd", "the etcd leader when the fault fires (nobody if there is none)"},
		{"etcd-follower", "etcd", "the first live member that is not the leader"},
		{"etcd-quorum", "etcd", "the first N/2+1 members: with them down, no quorum is left"},
		{"etcd-majority", "etcd", "the last N-(N-1)/2 members: a quorum"},
		{"etcd-minority", "etcd", "the first (N-1)/2 members: the largest group that is not a quorum"},
		{"apiservers", "api", "every API server"},
		{"api-clients", "api", "every client host of the API layer (writers, informers, the rogue client, reporters; the operator in the full stack)"},
		{"api-informers", "api", "the informer hosts of an API scenario"},
		{"api-writers", "api", "the counter writers and CRUD clients of an API scenario"},
		{"nodes", "stack", "every node (kubelet host)"},
		{"schedulers", "stack", "every scheduler"},
		{"controller-managers", "stack", "every controller manager"},
		{"scheduler-leader", "stack", "the scheduler that leads when the fault fires (nobody if none does)"},
		{"controller-manager-leader", "stack", "the controller manager that leads when the fault fires (nobody if none does)"},
		{"etcd-followers", "etcd", "every member but the leader when the fault fires (every member if none leads)"},
	}
}
