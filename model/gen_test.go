package model

import (
	"reflect"

	"pgregory.net/rapid"
)

// Reflection-driven generators and mutators for the property tests: they
// reach every field of every kind, so a field added later is covered
// without touching the tests.

var (
	intOrStringType  = reflect.TypeOf(IntOrString{})
	resourceListType = reflect.TypeOf(ResourceList{})
	typeMetaType     = reflect.TypeOf(TypeMeta{})
)

// genObject draws a random object of r's kind, with canonical TypeMeta and
// nil (not empty) maps and slices, which is what a round trip through JSON
// with omitempty preserves.
func genObject(t *rapid.T, r Resource) Object {
	obj := r.New()
	v := reflect.ValueOf(obj).Elem()
	fill(t, v, "obj")
	*obj.GetTypeMeta() = TypeMeta{Kind: r.Kind, APIVersion: r.APIVersion()}
	return obj
}

func fill(t *rapid.T, v reflect.Value, label string) {
	switch v.Type() {
	case typeMetaType:
		return
	case intOrStringType:
		if rapid.Bool().Draw(t, label+".isInt") {
			v.Set(reflect.ValueOf(FromInt(rapid.IntRange(-5, 200).Draw(t, label+".int"))))
		} else {
			v.Set(reflect.ValueOf(FromString(rapid.StringMatching(`[0-9]{1,3}%?`).Draw(t, label+".str"))))
		}
		return
	case resourceListType:
		n := rapid.IntRange(0, 3).Draw(t, label+".len")
		if n == 0 {
			return
		}
		l := ResourceList{}
		for i := 0; i < n; i++ {
			name := rapid.SampledFrom([]ResourceName{ResourceCPU, ResourceMemory, ResourcePods}).Draw(t, label+".name")
			l[name] = Quantity(rapid.Int64Range(-1<<40, 1<<40).Draw(t, label+".q"))
		}
		v.Set(reflect.ValueOf(l))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(rapid.String().Draw(t, label))
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, label))
	case reflect.Int, reflect.Int64:
		v.SetInt(rapid.Int64().Draw(t, label))
	case reflect.Int32:
		v.SetInt(int64(rapid.Int32().Draw(t, label)))
	case reflect.Pointer:
		if rapid.Bool().Draw(t, label+".nil") {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), label+"*")
		v.Set(p)
	case reflect.Slice:
		n := rapid.IntRange(0, 3).Draw(t, label+".len")
		if n == 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			fill(t, s.Index(i), label+"[]")
		}
		v.Set(s)
	case reflect.Map:
		n := rapid.IntRange(0, 3).Draw(t, label+".len")
		if n == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for i := 0; i < n; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fill(t, k, label+".key")
			e := reflect.New(v.Type().Elem()).Elem()
			fill(t, e, label+".val")
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), label+"."+v.Type().Field(i).Name)
			}
		}
	default:
		panic("gen: unhandled kind " + v.Kind().String() + " in " + label)
	}
}

// mutate changes every reachable leaf of v in place (through pointers,
// slices and maps, without replacing them), so that any memory a deep copy
// shares with its original shows up as a change to the original.
func mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(v.Int() ^ 1)
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			mutate(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
		k := reflect.New(v.Type().Key()).Elem()
		k.SetString("added-by-mutate")
		v.SetMapIndex(k, reflect.New(v.Type().Elem()).Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i))
			}
		}
	}
}
