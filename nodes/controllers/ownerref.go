package controllers

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client/cache"
)

// ResolveControllerRef returns the owner a controller reference points
// at in namespace, as the real controllers' resolveControllerRef: the
// object of inf named by ref, if ref is of kind and the object is a T with
// ref's UID (the owner may have been deleted and recreated under the same
// name); the zero T (nil) otherwise.
func ResolveControllerRef[T model.Object](inf *cache.Informer, kind, namespace string, ref *model.OwnerReference) T {
	var none T
	if ref == nil || ref.Kind != kind {
		return none
	}
	obj, ok := inf.Lister().ByNamespace(namespace).Get(ref.Name)
	if !ok {
		return none
	}
	owner, ok := obj.(T)
	if !ok || owner.GetObjectMeta().UID != ref.UID {
		return none
	}
	return owner
}
