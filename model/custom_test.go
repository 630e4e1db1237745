package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testWidgets = CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true}

// TestNewRegistryErrors: a definition is checked as the apiextensions API
// server checks a CustomResourceDefinition's spec
// (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/
// validation.go, validateCustomResourceDefinitionSpec and
// ValidateCustomResourceDefinitionNames), and a plural or kind that is
// taken is refused with the holder named.
func TestNewRegistryErrors(t *testing.T) {
	with := func(f func(*CustomResourceDefinition)) CustomResourceDefinition {
		d := testWidgets
		f(&d)
		return d
	}
	for _, tc := range []struct {
		name string
		defs []CustomResourceDefinition
		want string
	}{
		{"no group", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Group = "" })}, "spec.group: Required value"},
		{"group without a dot", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Group = "example" })},
			`spec.group: Invalid value: "example": should be a domain with at least one dot`},
		{"group not a subdomain", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Group = "Example.com" })},
			`spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain`},
		{"no version", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Version = "" })}, "spec.versions[0].name: Required value"},
		{"bad plural", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Plural = "Widgets" })},
			`spec.names.plural: Invalid value: "Widgets": a DNS-1035 label`},
		{"plural starting with a digit", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Plural = "1widgets" })},
			`spec.names.plural: Invalid value: "1widgets"`},
		{"no kind", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Kind = "" })}, "spec.names.kind: Required value"},
		{"bad kind", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Kind = "Wid_get" })},
			`spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match`},
		{"built-in plural", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Plural = "pods" })},
			`spec.names.plural: Duplicate value: "pods" is already the resource of kind Pod (v1)`},
		{"duplicate plural", []CustomResourceDefinition{testWidgets, with(func(d *CustomResourceDefinition) { d.Group = "other.io"; d.Kind = "Gizmo" })},
			`custom resource 1 (widgets.other.io): spec.names.plural: Duplicate value: "widgets" is already the resource of kind Widget (example.com/v1)`},
		{"built-in kind", []CustomResourceDefinition{with(func(d *CustomResourceDefinition) { d.Kind = "Lease" })},
			`spec.names.kind: Duplicate value: "Lease" is already the kind of resource leases`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRegistry(tc.defs...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	r, err := NewRegistry(testWidgets)
	require.NoError(t, err)
	res, ok := r.ForName("widgets")
	require.True(t, ok)
	assert.Equal(t, "example.com/v1", res.APIVersion())
	assert.True(t, res.NoUnconditionalUpdate, "customResourceStrategy.AllowUnconditionalUpdate is false")
	_, ok = r.ForKind("Widget")
	assert.True(t, ok)
	assert.Len(t, r.Resources(), len(Resources())+1)
	var names []string
	for _, res := range r.Resources() {
		names = append(names, res.Name)
	}
	assert.Equal(t, []string{"pods", "nodes", "replicasets", "deployments", "leases", "services", "endpointslices", "widgets"}, names, "built-in kinds first, in their order")
	_, ok = (*Registry)(nil).ForName("widgets")
	assert.False(t, ok, "the nil registry serves the built-in kinds only")
	_, ok = ResourceForName("widgets")
	assert.False(t, ok, "registering does not change the built-in registry")
}

// TestCustomObjectEncoding: spec and status are canonical whatever form
// they were given in (map order, spacing, 1.0 as 1 as apimachinery's
// unstructured JSON decoding makes it an int64), a custom object
// round-trips through Encode and Decode byte for byte, and unknown
// top-level fields are refused.
func TestCustomObjectEncoding(t *testing.T) {
	o := NewCustomObject(testWidgets, "default", "w1")
	o.Labels = map[string]string{"b": "2", "a": "1"}
	o.Spec = RawJSON(`{ "z": 1.0, "a": [ {"y": 2, "x": "<"} ], "m": {"k": null} }`)
	require.NoError(t, o.SetStatus(map[string]any{"ready": true, "count": 3}))
	data, err := Encode(o)
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w1","namespace":"default","labels":{"a":"1","b":"2"}},`+
		`"spec":{"a":[{"x":"\u003c","y":2}],"m":{"k":null},"z":1},"status":{"count":3,"ready":true}}`, string(data))
	back, err := Decode(data)
	require.NoError(t, err)
	co, ok := back.(*CustomObject)
	require.True(t, ok)
	again, err := Encode(co)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
	assert.Equal(t, "Widget", co.Kind())

	cp := co.DeepCopy()
	cp.Spec[2] = 'X'
	cp.Labels["a"] = "changed"
	assert.Equal(t, string(data), string(must(Encode(co))), "a deep copy shares no memory")

	var st struct {
		Ready bool `json:"ready"`
		Count int  `json:"count"`
	}
	require.NoError(t, co.DecodeStatus(&st))
	assert.Equal(t, 3, st.Count)

	_, err = Decode([]byte(`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w"},"data":{}}`))
	assert.ErrorContains(t, err, `unknown field "data"`)
	_, err = Decode([]byte(`{"kind":"Widget","apiVersion":"v1","metadata":{"name":"w"}}`))
	assert.ErrorContains(t, err, `unknown kind "Widget"`, "a core-group apiVersion is not a custom kind's")
	_, err = Encode(&CustomObject{ObjectMeta: ObjectMeta{Name: "x"}})
	assert.ErrorContains(t, err, "not a custom kind's")
	_, err = CanonicalJSON([]byte(`{"a":1} {}`))
	assert.ErrorContains(t, err, "trailing data")
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestValidateCustomObject: metadata is checked with the kind's scope, and
// the definition's Validate runs with the old object on update.
func TestValidateCustomObject(t *testing.T) {
	var sawOld *CustomObject
	d := testWidgets
	d.Validate = func(obj, old *CustomObject) ErrorList {
		sawOld = old
		if len(obj.Spec) == 0 {
			return ErrorList{FieldRequired("spec", "")}
		}
		return nil
	}
	o := NewCustomObject(d, "", "w1")
	errs := ValidateCustomObject(d, o, nil)
	assert.Equal(t, "[metadata.namespace: Required value, spec: Required value]", errs.Error())
	o.Namespace = "default"
	require.NoError(t, o.SetSpec(map[string]int{"size": 1}))
	assert.Empty(t, ValidateCustomObject(d, o, nil))
	assert.Nil(t, sawOld)
	n := o.DeepCopy()
	n.Name = "w2"
	errs = ValidateCustomObject(d, n, o)
	assert.Contains(t, errs.Error(), "metadata.name: Invalid value")
	assert.Same(t, o, sawOld)
}

// TestControllerRefToCustomObject: a controller reference to a custom
// owner carries the owner's apiVersion, as metav1.NewControllerRef takes
// it from the owner's GroupVersionKind, so that it passes the
// ownerReferences validation.
func TestControllerRefToCustomObject(t *testing.T) {
	o := NewCustomObject(testWidgets, "default", "w1")
	o.UID = "u1"
	ref := NewControllerRef(o, o.Kind())
	assert.Equal(t, "example.com/v1", ref.APIVersion)
	assert.Equal(t, "Widget", ref.Kind)
	dep := &Lease{ObjectMeta: ObjectMeta{Name: "l", Namespace: "default", OwnerReferences: []OwnerReference{*ref}}}
	assert.Empty(t, Validate(dep))
}

// TestRegistryResourceOf: a registry maps an object to its resource by
// kind, built-in and custom alike, and refuses what it does not serve
// with an error instead of ResourceOf's panic.
func TestRegistryResourceOf(t *testing.T) {
	reg := MustNewRegistry(testWidgets)
	w := NewCustomObject(testWidgets, "default", "a")
	stranger := NewCustomObject(CustomResourceDefinition{Group: "other.example", Version: "v1", Kind: "Gadget", Plural: "gadgets"}, "", "g")
	wrongVersion := w.DeepCopy()
	wrongVersion.APIVersion = "example.com/v2"
	posing := &CustomObject{TypeMeta: TypeMeta{Kind: KindPod, APIVersion: "v1"}}
	for _, tc := range []struct {
		name string
		reg  *Registry
		obj  Object
		want string // resource name, or "" for an error
		err  string
	}{
		{"built-in kind", reg, &Pod{}, ResourcePodsName, ""},
		{"built-in kind, nil registry", nil, &Deployment{}, ResourceDeploymentsName, ""},
		{"custom kind", reg, w, "widgets", ""},
		{"custom kind, nil registry", nil, w, "", `no resource of kind "Widget"`},
		{"unregistered custom kind", reg, stranger, "", `no resource of kind "Gadget"`},
		{"custom object of another version", reg, wrongVersion, "", `apiVersion "example.com/v2"`},
		{"custom object posing as a built-in kind", reg, posing, "", "is not the registered kind of resource pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.reg.ResourceOf(tc.obj)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, res.Name)
		})
	}
}
