package model

import (
	"fmt"
	"slices"
	"strings"
)

// CustomResourceDefinition registers a custom kind, as the spec of an
// apiextensions.k8s.io/v1 CustomResourceDefinition says
// (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/types.go), reduced
// to one served version: its group, version, names, scope, a validation
// function standing in for the OpenAPI schema, and whether the status
// subresource is on. Objects of the kind are *CustomObject values.
type CustomResourceDefinition struct {
	// Group is the API group, a DNS subdomain with at least one dot
	// ("example.com"), as spec.group.
	Group string
	// Version is the served version ("v1"), a DNS-1035 label, as
	// spec.versions[].name.
	Version string
	// Kind is the CamelCase kind ("Widget"), as spec.names.kind.
	Kind string
	// Plural is the resource name ("widgets"), a DNS-1035 label, as
	// spec.names.plural: the path segment of the REST API and of the
	// storage key. In kubesim it must differ from every other resource's,
	// built-in or custom, since a request names its resource without a
	// group.
	Plural string
	// Namespaced is spec.scope Namespaced (true) or Cluster (false).
	Namespaced bool
	// Validate, when set, stands in for the version's openAPIV3Schema and
	// x-kubernetes-validations: it runs on every create (old nil), update,
	// patch and status update after the API server's own checks of the
	// metadata, and a non-empty list is answered 422 Invalid with these
	// errors, as the schema validator's field errors are.
	Validate func(obj, old *CustomObject) ErrorList
	// StatusSubresource is spec.versions[].subresources.status: when on,
	// the main endpoint ignores status (create drops it, update and patch
	// keep the stored one), update-status changes only status, and
	// metadata.generation counts spec changes only; when off, status is
	// an ordinary field (any change of spec or status bumps generation)
	// and update-status is 404 (k8s.io/apiextensions-apiserver
	// pkg/registry/customresource/strategy.go PrepareForCreate and
	// PrepareForUpdate, status_strategy.go PrepareForUpdate).
	StatusSubresource bool
}

// APIVersion returns "group/version".
func (d CustomResourceDefinition) APIVersion() string { return d.Group + "/" + d.Version }

// Name is the definition's object name, "<plural>.<group>", as a real
// CustomResourceDefinition must be named.
func (d CustomResourceDefinition) Name() string { return d.Plural + "." + d.Group }

// Resource returns the registry entry of the kind. Custom kinds refuse
// version-less updates, as customResourceStrategy.AllowUnconditionalUpdate
// returns false (k8s.io/apiextensions-apiserver
// pkg/registry/customresource/strategy.go, v0.34).
func (d CustomResourceDefinition) Resource() Resource {
	def := d
	return Resource{Kind: d.Kind, Name: d.Plural, Group: d.Group, Version: d.Version, Namespaced: d.Namespaced,
		New: func() Object {
			return &CustomObject{TypeMeta: TypeMeta{Kind: def.Kind, APIVersion: def.APIVersion()}}
		},
		NoUnconditionalUpdate: true, Custom: &def}
}

// ValidateDefinition checks d as the apiextensions API server validates a
// CustomResourceDefinition's spec (k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go,
// validateCustomResourceDefinitionSpec and
// ValidateCustomResourceDefinitionNames): group is required, a DNS
// subdomain with at least one dot; version and plural are required DNS-1035
// labels; kind is required and, lower-cased, a DNS-1035 label. Fields are
// named by their paths in a real CustomResourceDefinition.
func ValidateDefinition(d CustomResourceDefinition) ErrorList {
	var errs ErrorList
	switch {
	case d.Group == "":
		errs = append(errs, required("spec.group", ""))
	case len(IsDNS1123Subdomain(d.Group)) > 0:
		errs = append(errs, invalid("spec.group", d.Group, strings.Join(IsDNS1123Subdomain(d.Group), ",")))
	case !strings.Contains(d.Group, "."):
		errs = append(errs, invalid("spec.group", d.Group, "should be a domain with at least one dot"))
	}
	if d.Version == "" {
		errs = append(errs, required("spec.versions[0].name", ""))
	} else if msgs := IsDNS1035Label(d.Version); len(msgs) > 0 {
		errs = append(errs, invalid("spec.versions[0].name", d.Version, strings.Join(msgs, ",")))
	}
	if d.Plural == "" {
		errs = append(errs, required("spec.names.plural", ""))
	} else if msgs := IsDNS1035Label(d.Plural); len(msgs) > 0 {
		errs = append(errs, invalid("spec.names.plural", d.Plural, strings.Join(msgs, ",")))
	}
	if d.Kind == "" {
		errs = append(errs, required("spec.names.kind", ""))
	} else if msgs := IsDNS1035Label(strings.ToLower(d.Kind)); len(msgs) > 0 {
		errs = append(errs, invalid("spec.names.kind", d.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// Registry is the set of kinds one simulated cluster serves: the built-in
// kinds (Resources) followed by the custom kinds it was made with, in that
// fixed order. It is immutable, so one registry can be shared by every API
// server of a world, and two worlds with different registries do not see
// each other's kinds. The nil *Registry serves the built-in kinds only.
type Registry struct {
	resources []Resource
}

// NewRegistry returns the registry of the built-in kinds and defs, in the
// order given. It fails, naming the definition and the field, when a
// definition is invalid (ValidateDefinition) or its plural or kind is
// already taken by a built-in kind or an earlier definition. Kubernetes
// tells resources apart by group as well (a CRD "pods.example.com" may
// exist); kubesim's requests name the resource alone, so plurals and kinds
// must be unique across groups.
func NewRegistry(defs ...CustomResourceDefinition) (*Registry, error) {
	r := &Registry{resources: Resources()}
	for i, d := range defs {
		if errs := ValidateDefinition(d); len(errs) > 0 {
			return nil, fmt.Errorf("custom resource %d (%s): %w", i, d.Name(), errs)
		}
		if prev, ok := r.ForName(d.Plural); ok {
			return nil, fmt.Errorf("custom resource %d (%s): spec.names.plural: Duplicate value: %q is already the resource of kind %s (%s)",
				i, d.Name(), d.Plural, prev.Kind, prev.APIVersion())
		}
		if prev, ok := r.ForKind(d.Kind); ok {
			return nil, fmt.Errorf("custom resource %d (%s): spec.names.kind: Duplicate value: %q is already the kind of resource %s (%s)",
				i, d.Name(), d.Kind, prev.Name, prev.APIVersion())
		}
		r.resources = append(r.resources, d.Resource())
	}
	return r, nil
}

// MustNewRegistry is NewRegistry that panics on an error, for literals in
// tests.
func MustNewRegistry(defs ...CustomResourceDefinition) *Registry {
	r, err := NewRegistry(defs...)
	if err != nil {
		panic(err)
	}
	return r
}

// Resources returns every kind's descriptor, built-in kinds first, then
// the custom kinds in registration order. The slice is a copy.
func (r *Registry) Resources() []Resource { return slices.Clone(r.all()) }

// all returns the descriptors themselves, not a copy: the built-in ones
// for a nil registry.
func (r *Registry) all() []Resource {
	if r == nil {
		return resources
	}
	return r.resources
}

// ForName returns the descriptor of the resource name ("widgets").
func (r *Registry) ForName(name string) (Resource, bool) {
	return findResource(r.all(), func(res *Resource) bool { return res.Name == name })
}

// ForKind returns the descriptor of kind ("Widget").
func (r *Registry) ForKind(kind string) (Resource, bool) {
	return findResource(r.all(), func(res *Resource) bool { return res.Kind == kind })
}

// ResourceOf returns the descriptor of obj's kind in the registry (the
// built-in kinds for a nil registry), as a RESTMapper maps an object's
// kind to its resource: the way to find a *CustomObject's resource, which
// the package-level ResourceOf does not know. A custom object must also
// carry its kind's apiVersion. An unknown kind is an error, not a panic,
// since an object may come from a user.
func (r *Registry) ResourceOf(obj Object) (Resource, error) {
	res, ok := r.ForKind(obj.Kind())
	if !ok {
		return Resource{}, fmt.Errorf("no resource of kind %q is registered", obj.Kind())
	}
	if c, isCustom := obj.(*CustomObject); isCustom != (res.Custom != nil) || (isCustom && c.APIVersion != res.APIVersion()) {
		return Resource{}, fmt.Errorf("kind %q (%T, apiVersion %q) is not the registered kind of resource %s (%s)",
			obj.Kind(), obj, apiVersionOf(obj), res.Name, res.APIVersion())
	}
	return res, nil
}

// apiVersionOf is a custom object's apiVersion, or "" for a built-in one.
func apiVersionOf(obj Object) string {
	if c, ok := obj.(*CustomObject); ok {
		return c.APIVersion
	}
	return ""
}

// ValidateCustomObject checks obj of the custom kind d on create (old nil)
// or update, as the custom resource strategy's Validate and ValidateUpdate
// do (k8s.io/apiextensions-apiserver
// pkg/registry/customresource/strategy.go): the body's kind and
// apiVersion, the metadata (ValidateObjectMeta with d's scope; on update
// also ValidateObjectMetaUpdate), then d.Validate.
func ValidateCustomObject(d CustomResourceDefinition, obj, old *CustomObject) ErrorList {
	var errs ErrorList
	if obj.TypeMeta.Kind != d.Kind {
		errs = append(errs, invalid("kind", obj.TypeMeta.Kind, "must be "+d.Kind))
	}
	if obj.APIVersion != d.APIVersion() {
		errs = append(errs, invalid("apiVersion", obj.APIVersion, "must be "+d.APIVersion()))
	}
	errs = append(errs, ValidateObjectMeta(&obj.ObjectMeta, d.Namespaced, IsDNS1123Subdomain, "metadata")...)
	if old != nil {
		errs = append(errs, ValidateObjectMetaUpdate(&old.ObjectMeta, &obj.ObjectMeta, "metadata")...)
	}
	if d.Validate != nil {
		errs = append(errs, d.Validate(obj, old)...)
	}
	return errs
}

// FieldInvalid returns an Invalid field error ("spec.size: Invalid value:
// -1: must be positive"), for a CustomResourceDefinition's Validate.
func FieldInvalid(field string, value any, detail string) *FieldError {
	return invalid(field, value, detail)
}

// FieldRequired returns a Required field error ("spec.size: Required
// value"), for a CustomResourceDefinition's Validate.
func FieldRequired(field, detail string) *FieldError { return required(field, detail) }
