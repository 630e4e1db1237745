package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Encode returns obj's stored form, the bytes kubesim's API server puts in
// etcd: the object as JSON with its canonical "kind" and "apiVersion" at the
// top, then "metadata", "spec" and "status" (JSON names as in k8s.io/api).
// Whatever obj's TypeMeta holds, the canonical values for its Go type are
// written (obj itself is left as it was).
//
// The encoding is deterministic: struct fields come out in declaration
// order, and encoding/json writes map keys (labels, annotations, resource
// lists, selectors' matchLabels) in sorted order, so equal objects always
// encode to identical bytes. Timestamps are integers (virtual nanoseconds)
// and quantities are Kubernetes quantity strings ("500m", "128Mi").
//
// A *CustomObject is written with the kind and apiVersion its TypeMeta
// holds, which must be those of a custom kind (a group with a dot), and
// its spec and status in canonical form.
func Encode(obj Object) ([]byte, error) {
	if co, ok := obj.(*CustomObject); ok {
		return encodeCustom(co)
	}
	r, ok := ResourceForKind(obj.Kind())
	if !ok {
		return nil, fmt.Errorf("encode: unregistered kind %q", obj.Kind())
	}
	tm := obj.GetTypeMeta()
	saved := *tm
	*tm = TypeMeta{Kind: r.Kind, APIVersion: r.APIVersion()}
	data, err := json.Marshal(obj)
	*tm = saved
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", r.Kind, err)
	}
	return data, nil
}

// Decode parses a stored form written by Encode. The kind and apiVersion
// select the Go type (and must match the registry); unknown fields are an
// error, so a stored object that does not fit its type is caught rather
// than silently trimmed. The returned object's TypeMeta holds the canonical
// kind and apiVersion.
//
// A kind that is not built in, with an apiVersion whose group has a dot
// and is no built-in kind's group, decodes as a *CustomObject (as
// client-go's unstructured decoding takes any kind), with the TypeMeta
// the data holds; it may have only metadata, spec and status.
func Decode(data []byte) (Object, error) {
	tm, ok := typeMetaPrefix(data)
	if !ok {
		if err := json.Unmarshal(data, &tm); err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
	}
	r, ok := ResourceForKind(tm.Kind)
	if !ok && tm.Kind != "" && isCustomAPIVersion(tm.APIVersion) {
		return decodeCustom(data, tm)
	}
	if !ok {
		return nil, fmt.Errorf("decode: unknown kind %q", tm.Kind)
	}
	if tm.APIVersion != r.APIVersion() {
		return nil, fmt.Errorf("decode: kind %s has apiVersion %q, not %q", tm.Kind, r.APIVersion(), tm.APIVersion)
	}
	obj := r.New()
	if err := decodeStrict(data, obj, r.Kind); err != nil {
		return nil, err
	}
	*obj.GetTypeMeta() = TypeMeta{Kind: r.Kind, APIVersion: r.APIVersion()}
	return obj, nil
}

// typeMetaPrefix reads the kind and apiVersion from the head of data when
// it starts the way Encode writes it ({"kind":"K","apiVersion":"V",...}),
// so that Decode need not parse the document twice; ok is false for any
// other shape, which Decode then parses in full. Kinds and versions have
// no characters JSON would escape.
func typeMetaPrefix(data []byte) (tm TypeMeta, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"kind":"`))
	if !ok {
		return tm, false
	}
	kind, rest, ok := bytes.Cut(rest, []byte(`"`))
	if !ok || bytes.IndexByte(kind, '\\') >= 0 {
		return tm, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"apiVersion":"`))
	if !ok {
		return tm, false
	}
	version, _, ok := bytes.Cut(rest, []byte(`"`))
	if !ok || bytes.IndexByte(version, '\\') >= 0 {
		return tm, false
	}
	return TypeMeta{Kind: string(kind), APIVersion: string(version)}, true
}

// encodeCustom is Encode of a custom object.
func encodeCustom(o *CustomObject) ([]byte, error) {
	if o.TypeMeta.Kind == "" || !isCustomAPIVersion(o.APIVersion) {
		return nil, fmt.Errorf("encode: custom object %q has kind %q and apiVersion %q, not a custom kind's (group.with.dot/version)",
			o.Name, o.TypeMeta.Kind, o.APIVersion)
	}
	data, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", o.TypeMeta.Kind, err)
	}
	return data, nil
}

// decodeCustom is Decode of a custom object's stored form.
func decodeCustom(data []byte, tm TypeMeta) (Object, error) {
	obj := &CustomObject{}
	if err := decodeStrict(data, obj, tm.Kind); err != nil {
		return nil, err
	}
	obj.TypeMeta = tm
	return obj, nil
}

// decodeStrict parses data, one JSON value with no unknown fields, into
// obj, an object of kind (which errors name).
func decodeStrict(data []byte, obj Object, kind string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return fmt.Errorf("decode %s: %w", kind, err)
	}
	if dec.More() {
		return fmt.Errorf("decode %s: trailing data", kind)
	}
	return nil
}
