package model

// GetControllerOf returns a copy of obj's controller owner reference (the
// one with Controller true), or nil, as metav1.GetControllerOf.
func GetControllerOf(obj Object) *OwnerReference {
	for _, r := range obj.GetObjectMeta().OwnerReferences {
		if r.Controller != nil && *r.Controller {
			var out OwnerReference
			r.DeepCopyInto(&out)
			return &out
		}
	}
	return nil
}

// IsControlledBy reports whether obj's controller reference points at owner
// (by UID, so a recreated owner of the same name does not count).
func IsControlledBy(obj, owner Object) bool {
	ref := GetControllerOf(obj)
	return ref != nil && ref.UID == owner.GetObjectMeta().UID
}

// NewControllerRef returns a controller reference to owner of the given kind
// (normally owner.Kind()), as metav1.NewControllerRef: Controller and
// BlockOwnerDeletion are true, and APIVersion comes from the registry, or
// for a *CustomObject owner from its own TypeMeta.
func NewControllerRef(owner Object, kind string) *OwnerReference {
	m := owner.GetObjectMeta()
	apiVersion := ""
	if r, ok := ResourceForKind(kind); ok {
		apiVersion = r.APIVersion()
	} else if co, ok := owner.(*CustomObject); ok && co.TypeMeta.Kind == kind {
		apiVersion = co.APIVersion
	}
	return &OwnerReference{
		APIVersion:         apiVersion,
		Kind:               kind,
		Name:               m.Name,
		UID:                m.UID,
		Controller:         Ptr(true),
		BlockOwnerDeletion: Ptr(true),
	}
}
