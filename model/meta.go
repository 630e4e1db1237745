package model

import (
	"maps"
	"slices"
)

// UID is an object's unique identity across time, as types.UID: two objects
// with the same name but different UIDs are different objects (one was
// deleted and the other created).
type UID string

// TypeMeta names an object's kind and API version on the wire, as
// metav1.TypeMeta. Encode always writes the canonical values for the object's
// Go type and Decode fills them in, whatever the struct held.
type TypeMeta struct {
	// Kind is the object's kind in CamelCase, e.g. "Pod".
	Kind string `json:"kind,omitempty"`
	// APIVersion is group/version, or just the version for the core group
	// ("v1", "apps/v1", "coordination.k8s.io/v1").
	APIVersion string `json:"apiVersion,omitempty"`
}

// GetTypeMeta returns t itself; it is promoted to every kind that embeds
// TypeMeta.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted object has, as
// metav1.ObjectMeta.
type ObjectMeta struct {
	// Name is unique within a namespace (or the cluster, for cluster-scoped
	// kinds) and cannot be updated.
	Name string `json:"name,omitempty"`
	// GenerateName, when Name is empty on create, asks the API server to
	// name the object: this prefix plus 5 random characters, as
	// metav1.ObjectMeta.GenerateName. Controllers use it for the pods they
	// create ("<replicaset>-"). It is stored as given.
	GenerateName string `json:"generateName,omitempty"`
	// Namespace is empty for cluster-scoped kinds (Node).
	Namespace string `json:"namespace,omitempty"`
	// UID is set by the API server on create and never changes.
	UID UID `json:"uid,omitempty"`
	// ResourceVersion is opaque to clients; kubesim's API server, like the real
	// one, sets it to the etcd mod_revision of the object's key, in decimal.
	// An update that carries a stale value is rejected with 409 Conflict.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Generation is a sequence number of changes to the desired state (spec),
	// maintained by the API server.
	Generation int64 `json:"generation,omitempty"`
	// CreationTimestamp is set by the API server on create (virtual time).
	CreationTimestamp Time `json:"creationTimestamp,omitempty"`
	// DeletionTimestamp is set by the API server when a graceful deletion is
	// requested; the object goes away once its finalizers are empty (and, for
	// pods, once the kubelet confirms termination).
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty"`
	// DeletionGracePeriodSeconds is the grace period of a requested deletion.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty"`
	// Labels are identifying key/value pairs that selectors match.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are non-identifying key/value pairs.
	Annotations map[string]string `json:"annotations,omitempty"`
	// OwnerReferences lists the objects this one depends on; at most one is
	// the managing controller.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty"`
	// Finalizers must all be removed before a deleted object is removed from
	// storage.
	Finalizers []string `json:"finalizers,omitempty"`
}

// GetObjectMeta returns m itself; it is promoted to every kind that embeds
// ObjectMeta, which makes them satisfy Object's accessor.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// DeepCopy returns a copy of m that shares no memory with it.
func (m *ObjectMeta) DeepCopy() *ObjectMeta {
	if m == nil {
		return nil
	}
	out := new(ObjectMeta)
	m.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies m into out, sharing no memory.
func (m *ObjectMeta) DeepCopyInto(out *ObjectMeta) {
	*out = *m // the scalar fields: Name, GenerateName, Namespace, UID...
	out.DeletionTimestamp = clonePtr(m.DeletionTimestamp)
	out.DeletionGracePeriodSeconds = clonePtr(m.DeletionGracePeriodSeconds)
	out.Labels = maps.Clone(m.Labels)
	out.Annotations = maps.Clone(m.Annotations)
	out.OwnerReferences = cloneEach(m.OwnerReferences, (*OwnerReference).DeepCopyInto)
	out.Finalizers = slices.Clone(m.Finalizers)
}

// OwnerReference points at an object this one depends on, as
// metav1.OwnerReference. The owner must be in the same namespace (or be
// cluster-scoped).
type OwnerReference struct {
	// APIVersion of the owner, e.g. "apps/v1".
	APIVersion string `json:"apiVersion"`
	// Kind of the owner, e.g. "ReplicaSet".
	Kind string `json:"kind"`
	// Name of the owner.
	Name string `json:"name"`
	// UID of the owner: a reference to a deleted-and-recreated owner of the
	// same name does not match.
	UID UID `json:"uid"`
	// Controller marks the managing controller; at most one reference may set
	// it.
	Controller *bool `json:"controller,omitempty"`
	// BlockOwnerDeletion makes foreground deletion of the owner wait for this
	// object.
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty"`
}

// DeepCopyInto copies r into out, sharing no memory.
func (r *OwnerReference) DeepCopyInto(out *OwnerReference) {
	*out = *r
	out.Controller = clonePtr(r.Controller)
	out.BlockOwnerDeletion = clonePtr(r.BlockOwnerDeletion)
}

// Object is any kind kubesim stores. Every kind (*Pod, *Node, *ReplicaSet,
// *Deployment, *Lease) implements it through pointer receivers.
type Object interface {
	// GetObjectMeta returns the object's metadata for reading and writing.
	GetObjectMeta() *ObjectMeta
	// GetTypeMeta returns the object's kind/apiVersion as last decoded or set.
	GetTypeMeta() *TypeMeta
	// Kind returns the kind constant of the Go type (e.g. KindPod), whatever
	// TypeMeta holds.
	Kind() string
	// DeepCopyObject returns a copy that shares no memory with the receiver:
	// mutating the copy never changes the original.
	DeepCopyObject() Object
}

// NamespacedName is an object's identity within its kind, as
// types.NamespacedName.
type NamespacedName struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" for cluster-scoped objects, the
// form of client-go's MetaNamespaceKeyFunc.
func (n NamespacedName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// KeyOf returns obj's namespace and name.
func KeyOf(obj Object) NamespacedName {
	m := obj.GetObjectMeta()
	return NamespacedName{Namespace: m.Namespace, Name: m.Name}
}
