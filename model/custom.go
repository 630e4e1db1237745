package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CustomObject is an object of a custom kind (a CustomResourceDefinition
// registered with NewRegistry), as unstructured.Unstructured is in
// client-go's dynamic client: the same ObjectMeta as every kind, and a
// spec and a status that are JSON values the API server does not
// interpret. Unlike Unstructured it has no other top-level fields.
//
// Its TypeMeta is its identity: Kind returns TypeMeta.Kind, and Encode
// writes the TypeMeta it holds (a built-in kind's TypeMeta is overwritten
// with the canonical one instead). NewCustomObject fills it in from the
// definition.
//
// Spec and Status are held in canonical form (CanonicalJSON): object keys
// sorted, no insignificant space, integers as integers and other numbers
// as the shortest float64. Equal values are thus equal bytes, which keeps
// DeepCopy a byte copy, encoding deterministic whatever map a caller built
// the value from, and the API server's "did the spec change" test (which
// bumps metadata.generation) exact.
type CustomObject struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	// Spec is the desired state, as JSON; nil when absent.
	Spec RawJSON `json:"spec,omitempty"`
	// Status is the observed state, as JSON; nil when absent.
	Status RawJSON `json:"status,omitempty"`
}

// NewCustomObject returns an empty object of the custom kind def, named
// namespace/name (namespace "" for a cluster-scoped kind), with its
// TypeMeta set.
func NewCustomObject(def CustomResourceDefinition, namespace, name string) *CustomObject {
	return &CustomObject{TypeMeta: TypeMeta{Kind: def.Kind, APIVersion: def.APIVersion()},
		ObjectMeta: ObjectMeta{Namespace: namespace, Name: name}}
}

// Kind returns the kind the object's TypeMeta names.
func (o *CustomObject) Kind() string { return o.TypeMeta.Kind }

// DeepCopyObject returns o.DeepCopy() as an Object.
func (o *CustomObject) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopyInto copies o into out, sharing no memory.
func (o *CustomObject) DeepCopyInto(out *CustomObject) { *out = *o.DeepCopy() }

// DeepCopy returns a copy of o that shares no memory with it.
func (o *CustomObject) DeepCopy() *CustomObject { return deepCopy(o) }

// copyRefsInto copies o's references into its shallow copy out (deepCopy).
func (o *CustomObject) copyRefsInto(out *CustomObject) {
	out.Spec, out.Status = o.Spec.clone(), o.Status.clone()
}

// SetSpec stores v (anything encoding/json marshals: a struct of the
// user's own spec type, a map) as the spec, in canonical form. A nil v
// clears it.
func (o *CustomObject) SetSpec(v any) error { return o.set(&o.Spec, "spec", v) }

// SetStatus stores v as the status, in canonical form; a nil v clears it.
func (o *CustomObject) SetStatus(v any) error { return o.set(&o.Status, "status", v) }

// set stores v in canonical form in field, o's part called part; field
// is left as it was on an error.
func (o *CustomObject) set(field *RawJSON, part string, v any) error {
	j, err := ToRawJSON(v)
	if err != nil {
		return fmt.Errorf("%s of %s %q: %w", part, o.Kind(), o.Name, err)
	}
	*field = j
	return nil
}

// DecodeSpec unmarshals the spec into v (a pointer), as a typed client
// would; an absent spec leaves v as it is.
func (o *CustomObject) DecodeSpec(v any) error { return o.Spec.decodeInto(v) }

// DecodeStatus unmarshals the status into v (a pointer); an absent status
// leaves v as it is.
func (o *CustomObject) DecodeStatus(v any) error { return o.Status.decodeInto(v) }

// Canonicalize puts Spec and Status in canonical form; it fails when
// either is not one JSON value. The API server does this to every custom
// object it receives.
func (o *CustomObject) Canonicalize() error {
	for _, f := range []*RawJSON{&o.Spec, &o.Status} {
		c, err := CanonicalJSON(*f)
		if err != nil {
			return err
		}
		*f = c
	}
	return nil
}

// RawJSON is one JSON value in canonical form (CanonicalJSON), or nil for
// none. It marshals as itself (canonicalized again, in case a caller built
// it by hand) and unmarshals into canonical form; null is none.
type RawJSON []byte

// ToRawJSON marshals v and returns it in canonical form; nil for a nil v
// or a JSON null.
func ToRawJSON(v any) (RawJSON, error) {
	if v == nil {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return CanonicalJSON(data)
}

// MarshalJSON writes the value in canonical form ("null" for none).
func (j RawJSON) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("null"), nil
	}
	c, err := CanonicalJSON(j)
	if c == nil && err == nil {
		return []byte("null"), nil
	}
	return c, err
}

// UnmarshalJSON stores data in canonical form; null is none.
func (j *RawJSON) UnmarshalJSON(data []byte) error {
	c, err := CanonicalJSON(data)
	if err != nil {
		return err
	}
	*j = c
	return nil
}

// String returns the JSON text, or "null".
func (j RawJSON) String() string {
	if len(j) == 0 {
		return "null"
	}
	return string(j)
}

func (j RawJSON) clone() RawJSON {
	if j == nil {
		return nil
	}
	return append(RawJSON(nil), j...)
}

func (j RawJSON) decodeInto(v any) error {
	if len(j) == 0 {
		return nil
	}
	return json.Unmarshal(j, v)
}

// CanonicalJSON returns data, one JSON value, in canonical form: parsed as
// apimachinery's unstructured JSON decoding parses it (a number that is an
// integer becomes an int64, any other a float64: UnstructuredJSONScheme in
// pkg/apis/meta/v1/unstructured/helpers.go via
// pkg/util/json.ConvertMapNumbers), then marshalled by encoding/json, which
// sorts object keys. Empty input and null return nil (no value); anything
// but a single value is an error.
func CanonicalJSON(data []byte) (RawJSON, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON value: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON value: trailing data after the value")
	}
	v, err := convertNumbers(v)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON value: %w", err)
	}
	return out, nil
}

// convertNumbers replaces every json.Number in v by an int64 when it is
// one, else a float64, as apimachinery's ConvertMapNumbers does.
func convertNumbers(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON value: number %s: %w", t, err)
		}
		return f, nil
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			c, err := convertNumbers(t[k])
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
	case []any:
		for i, e := range t {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
	}
	return v, nil
}

// isCustomAPIVersion reports whether apiVersion is group/version with a
// group that has a dot, as every CustomResourceDefinition's group must,
// and that no built-in kind uses: the stored forms Decode reads as a
// CustomObject.
func isCustomAPIVersion(apiVersion string) bool {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok || !strings.Contains(group, ".") || version == "" {
		return false
	}
	for _, r := range resources {
		if r.Group == group {
			return false
		}
	}
	return true
}

// SpecAs returns o's spec decoded as a T, the typed view of an untyped
// object (an absent spec is T's zero value).
func SpecAs[T any](o *CustomObject) (T, error) {
	var v T
	err := o.DecodeSpec(&v)
	return v, err
}

// StatusAs returns o's status decoded as a T (an absent status is T's zero
// value).
func StatusAs[T any](o *CustomObject) (T, error) {
	var v T
	err := o.DecodeStatus(&v)
	return v, err
}
