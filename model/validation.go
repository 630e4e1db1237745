package model

import (
	"fmt"
	"reflect"
	"strings"
)

// Validate checks obj as the API server's validation does on create, after
// defaulting (SetDefaults): metadata (name syntax for the kind, namespace
// presence per scope, labels, annotations, owner references, finalizers) and
// the kind's spec. An empty list means valid. Fields are named by their JSON
// paths, e.g. "spec.template.spec.containers[0].name".
func Validate(obj Object) ErrorList {
	if validate, ok := validators[obj.Kind()]; ok {
		return validate(obj)
	}
	return unknownKind(obj)
}

// validators holds the validation of each built-in kind, by kind.
var validators = map[string]func(Object) ErrorList{
	KindPod:           validatorOf(ValidatePod),
	KindNode:          validatorOf(ValidateNode),
	KindReplicaSet:    validatorOf(ValidateReplicaSet),
	KindDeployment:    validatorOf(ValidateDeployment),
	KindLease:         validatorOf(ValidateLease),
	KindService:       validatorOf(ValidateService),
	KindEndpointSlice: validatorOf(ValidateEndpointSlice),
}

// validatorOf makes a kind's validation apply to any Object: an object of
// another Go type that names the kind (a custom object) is of an unknown
// kind.
func validatorOf[T Object](validate func(T) ErrorList) func(Object) ErrorList {
	return func(obj Object) ErrorList {
		if o, ok := obj.(T); ok {
			return validate(o)
		}
		return unknownKind(obj)
	}
}

func unknownKind(obj Object) ErrorList { return ErrorList{invalid("kind", obj.Kind(), "unknown kind")} }

// ValidateUpdate checks an update from old to new, as the API server's
// update validation: new must be valid (Validate), and immutable things must
// not change. For every kind: metadata.name, namespace, uid,
// creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds are
// immutable, generation may not decrease, and no finalizer may be added to
// an object being deleted. Then per kind:
//
//   - Pod: spec is immutable except spec.containers[*].image, and
//     spec.nodeName, which may be set once when it was empty (kubesim lets a
//     binding be an update; Kubernetes uses the pods/binding subresource) and
//     never changed after. Status is free.
//   - ReplicaSet and Deployment: spec.selector is immutable (apps/v1).
//   - Service: spec.clusterIP is immutable once set.
//   - EndpointSlice: addressType is immutable.
//
// Setting deletionTimestamp is the API server's own graceful-delete path,
// which, as in Kubernetes, does not go through update validation.
//
// The two objects must be of the same kind. The argument order is (old, new),
// the reverse of Kubernetes' ValidateXUpdate(new, old).
func ValidateUpdate(old, new Object) ErrorList {
	if old.Kind() != new.Kind() {
		return ErrorList{invalid("kind", new.Kind(), "field is immutable")}
	}
	errs := Validate(new)
	errs = append(errs, ValidateObjectMetaUpdate(old.GetObjectMeta(), new.GetObjectMeta(), "metadata")...)
	switch o := old.(type) {
	case *Pod:
		errs = append(errs, validatePodSpecUpdate(&o.Spec, &new.(*Pod).Spec)...)
	case *ReplicaSet:
		errs = append(errs, validateImmutable(o.Spec.Selector, new.(*ReplicaSet).Spec.Selector, "spec.selector")...)
	case *Deployment:
		errs = append(errs, validateImmutable(o.Spec.Selector, new.(*Deployment).Spec.Selector, "spec.selector")...)
	case *Service:
		errs = append(errs, validateServiceUpdate(o, new.(*Service))...)
	case *EndpointSlice:
		errs = append(errs, validateImmutable(o.AddressType, new.(*EndpointSlice).AddressType, "addressType")...)
	}
	return errs
}

// validateImmutable reports new at path if it differs from old, as
// ValidateImmutableField ("field is immutable").
func validateImmutable(old, new any, path string) ErrorList {
	if reflect.DeepEqual(old, new) {
		return nil
	}
	return ErrorList{invalid(path, new, "field is immutable")}
}

// validateNonnegative reports a negative value at path.
func validateNonnegative(v int64, path string) ErrorList {
	if v < 0 {
		return ErrorList{invalid(path, v, "must be greater than or equal to 0")}
	}
	return nil
}

// ValidateObjectMeta checks metadata at path ("metadata") for a kind whose
// names are checked by nameFn (IsDNS1123Subdomain for every kind here) and
// whose scope is namespaced or not, as apimachinery's ValidateObjectMeta.
// A missing name is accepted when generateName is set (a valid name prefix,
// which may end with a dash): the API server generates the name before it
// validates, so the generated name is checked as any other.
func ValidateObjectMeta(meta *ObjectMeta, namespaced bool, nameFn func(string) []string, path string) ErrorList {
	var errs ErrorList
	if meta.GenerateName != "" {
		for _, msg := range nameFn(maskTrailingDash(meta.GenerateName)) {
			errs = append(errs, invalid(child(path, "generateName"), meta.GenerateName, msg))
		}
	}
	switch {
	case meta.Name == "" && meta.GenerateName != "":
		// The API server names the object (GenerateName plus 5 random
		// characters) and validates the generated name.
	case meta.Name == "":
		errs = append(errs, required(child(path, "name"), "name or generateName is required"))
	default:
		for _, msg := range nameFn(meta.Name) {
			errs = append(errs, invalid(child(path, "name"), meta.Name, msg))
		}
	}
	if namespaced {
		if meta.Namespace == "" {
			errs = append(errs, required(child(path, "namespace"), ""))
		} else {
			for _, msg := range IsDNS1123Label(meta.Namespace) {
				errs = append(errs, invalid(child(path, "namespace"), meta.Namespace, msg))
			}
		}
	} else if meta.Namespace != "" {
		errs = append(errs, forbidden(child(path, "namespace"), "not allowed on this type"))
	}
	errs = append(errs, validateNonnegative(meta.Generation, child(path, "generation"))...)
	errs = append(errs, ValidateLabels(meta.Labels, child(path, "labels"))...)
	errs = append(errs, ValidateAnnotations(meta.Annotations, child(path, "annotations"))...)
	errs = append(errs, validateOwnerReferences(meta.OwnerReferences, child(path, "ownerReferences"))...)
	errs = append(errs, validateFinalizers(meta.Finalizers, child(path, "finalizers"))...)
	return errs
}

// The finalizers the garbage collector acts on (metav1.FinalizerOrphanDependents
// and FinalizerDeleteDependents).
const (
	FinalizerOrphanDependents = "orphan"
	FinalizerDeleteDependents = "foregroundDeletion"
)

// validateFinalizers is apimachinery's ValidateFinalizers
// (pkg/api/validation/objectmeta.go): each finalizer is a qualified name,
// reported at the list's path (not an indexed one, as upstream), and
// orphan and foregroundDeletion together are refused.
func validateFinalizers(finalizers []string, path string) ErrorList {
	var errs ErrorList
	orphan, foreground := false, false
	for _, f := range finalizers {
		for _, msg := range IsQualifiedName(f) {
			errs = append(errs, invalid(path, f, msg))
		}
		orphan = orphan || f == FinalizerOrphanDependents
		foreground = foreground || f == FinalizerDeleteDependents
	}
	if orphan && foreground {
		errs = append(errs, invalid(path, stringList(finalizers),
			fmt.Sprintf("finalizer %s and %s cannot be both set", FinalizerOrphanDependents, FinalizerDeleteDependents)))
	}
	return errs
}

// stringList prints as Go prints a []string with %#v, as field.Invalid
// shows a list value.
type stringList []string

func (l stringList) String() string { return fmt.Sprintf("%#v", []string(l)) }

// maskTrailingDash is apimachinery's: a generateName prefix is checked as a
// name, except that it may end with a dash (the random suffix follows), so
// "x-" is checked as "a" would be and "abc-" as "aba".
func maskTrailingDash(name string) string {
	if len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-2] + "a"
	}
	return name
}

// validateOwnerReferences is apimachinery's ValidateOwnerReferences and
// validateOwnerReference (pkg/api/validation/objectmeta.go): each reference
// is checked at the list's path (upstream does not index it): a version
// (its apiVersion parsed as schema.ParseGroupVersion: "", "g/", and
// anything with two slashes have none), kind, name and uid are required,
// a core v1 Event may not be an owner, and at most one is the controller.
func validateOwnerReferences(refs []OwnerReference, path string) ErrorList {
	var errs ErrorList
	firstController := ""
	for _, r := range refs {
		p := path
		group, version := parseGroupVersion(r.APIVersion)
		if version == "" {
			errs = append(errs, invalid(child(p, "apiVersion"), r.APIVersion, "version must not be empty"))
		}
		if r.Kind == "" {
			errs = append(errs, invalid(child(p, "kind"), r.Kind, "kind must not be empty"))
		}
		if r.Name == "" {
			errs = append(errs, invalid(child(p, "name"), r.Name, "name must not be empty"))
		}
		if r.UID == "" {
			errs = append(errs, invalid(child(p, "uid"), string(r.UID), "uid must not be empty"))
		}
		if group == "" && version == "v1" && r.Kind == "Event" { // BannedOwners
			errs = append(errs, invalid(p, ownerRefValue(r), "v1, Kind=Event is disallowed from being an owner"))
		}
		if r.Controller != nil && *r.Controller {
			name := r.Kind + "/" + r.Name
			if firstController != "" {
				errs = append(errs, invalid(path, ownerRefList(refs),
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %s and %s", firstController, name)))
			} else {
				firstController = name
			}
		}
	}
	return errs
}

// parseGroupVersion splits an apiVersion as schema.ParseGroupVersion: ""
// and "/" are empty, no slash is a core version, one slash separates group
// and version, and more than one is an error (an empty version here).
func parseGroupVersion(gv string) (group, version string) {
	if gv == "" || gv == "/" {
		return "", ""
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv
	case 1:
		i := strings.IndexByte(gv, '/')
		return gv[:i], gv[i+1:]
	}
	return "", ""
}

// ownerRefValue prints an owner reference as field.Invalid shows a
// metav1.OwnerReference (Go's %#v); a set pointer field prints as
// (*bool)(0x...) there, an address kubesim cannot reproduce, so it prints
// the pointed-to value instead.
type ownerRefValue OwnerReference

func (r ownerRefValue) String() string {
	ptr := func(b *bool) string {
		if b == nil {
			return "(*bool)(nil)"
		}
		return fmt.Sprintf("&%t", *b)
	}
	return fmt.Sprintf("v1.OwnerReference{APIVersion:%q, Kind:%q, Name:%q, UID:%q, Controller:%s, BlockOwnerDeletion:%s}",
		r.APIVersion, r.Kind, r.Name, string(r.UID), ptr(r.Controller), ptr(r.BlockOwnerDeletion))
}

// ownerRefList prints as a list of kind/name, for error values.
type ownerRefList []OwnerReference

func (l ownerRefList) String() string {
	s := "["
	for i, r := range l {
		if i > 0 {
			s += " "
		}
		s += r.Kind + "/" + r.Name
	}
	return s + "]"
}

// ValidateObjectMetaUpdate checks the metadata changes of an update, as
// apimachinery's ValidateObjectMetaUpdate (the resourceVersion precondition
// is the API server's business: 409 Conflict, not a validation error).
func ValidateObjectMetaUpdate(old, new *ObjectMeta, path string) ErrorList {
	var errs ErrorList
	if old.DeletionTimestamp != nil {
		seen := map[string]bool{}
		for _, f := range old.Finalizers {
			seen[f] = true
		}
		var added []string
		for _, f := range new.Finalizers {
			if !seen[f] {
				added = append(added, f)
			}
		}
		if len(added) > 0 {
			errs = append(errs, forbidden(child(path, "finalizers"),
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added)))
		}
	}
	if new.Generation < old.Generation {
		errs = append(errs, invalid(child(path, "generation"), new.Generation, "must not be decremented"))
	}
	errs = append(errs, validateImmutable(old.Name, new.Name, child(path, "name"))...)
	errs = append(errs, validateImmutable(old.Namespace, new.Namespace, child(path, "namespace"))...)
	errs = append(errs, validateImmutable(string(old.UID), string(new.UID), child(path, "uid"))...)
	errs = append(errs, validateImmutable(old.CreationTimestamp, new.CreationTimestamp, child(path, "creationTimestamp"))...)
	errs = append(errs, validateImmutable(old.DeletionTimestamp, new.DeletionTimestamp, child(path, "deletionTimestamp"))...)
	errs = append(errs, validateImmutable(old.DeletionGracePeriodSeconds, new.DeletionGracePeriodSeconds, child(path, "deletionGracePeriodSeconds"))...)
	return errs
}
