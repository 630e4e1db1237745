package model

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// ErrorType is the kind of a FieldError, as field.ErrorType.
type ErrorType string

// The field error types kubesim reports.
const (
	// ErrorTypeInvalid: the value is malformed or out of range.
	ErrorTypeInvalid ErrorType = "FieldValueInvalid"
	// ErrorTypeRequired: a required value is missing.
	ErrorTypeRequired ErrorType = "FieldValueRequired"
	// ErrorTypeForbidden: the value may not be set (or changed) here.
	ErrorTypeForbidden ErrorType = "FieldValueForbidden"
	// ErrorTypeDuplicate: the value must be unique but is not.
	ErrorTypeDuplicate ErrorType = "FieldValueDuplicate"
	// ErrorTypeNotSupported: the value is not one of an enumeration.
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	// ErrorTypeTooLong: the value is too long.
	ErrorTypeTooLong ErrorType = "FieldValueTooLong"
	// ErrorTypeTooMany: a list has too many items.
	ErrorTypeTooMany ErrorType = "FieldValueTooMany"
)

// String returns the phrase Kubernetes prints for t ("Invalid value",
// "Required value", "Forbidden", "Duplicate value", "Unsupported value",
// "Too long", "Too many").
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeInvalid:
		return "Invalid value"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooMany:
		return "Too many"
	}
	return string(t)
}

// FieldError is one validation failure, as field.Error: its type, the path
// of the field in JSON names ("spec.containers[0].name"), the offending value
// and a detail.
type FieldError struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

// Error prints e as Kubernetes does, e.g.
//
//	metadata.name: Invalid value: "Foo_1": a lowercase RFC 1123 subdomain ...
//	spec.containers: Required value
func (e *FieldError) Error() string { return e.Field + ": " + e.ErrorBody() }

// ErrorBody is Error without the field path. Required, Forbidden and TooLong
// omit the value; strings are quoted; numbers and booleans print bare; nil
// pointers print as null; types with a String method use it; anything else
// prints as a Go value (%#v).
func (e *FieldError) ErrorBody() string {
	var s string
	switch e.Type {
	case ErrorTypeRequired, ErrorTypeForbidden, ErrorTypeTooLong:
		s = e.Type.String()
	default:
		v := e.BadValue
		if v != nil {
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
				if rv.IsNil() {
					v = nil
				} else {
					v = rv.Elem().Interface()
				}
			}
		}
		switch t := v.(type) {
		case nil:
			s = e.Type.String() + ": null"
		case int, int64, int32, float64, float32, bool:
			s = fmt.Sprintf("%s: %v", e.Type, t)
		case string:
			s = e.Type.String() + ": " + strconv.Quote(t)
		case fmt.Stringer:
			s = e.Type.String() + ": " + t.String()
		default:
			s = fmt.Sprintf("%s: %#v", e.Type, t)
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// ErrorList is a list of field errors, as field.ErrorList. Its Error prints
// one error as itself and several as "[e1, e2]", as the aggregate Kubernetes
// returns. Use ToAggregate to get an error that is nil when the list is
// empty: a nil ErrorList stored in an error interface is not a nil error.
type ErrorList []*FieldError

// Error prints the list as utilerrors.NewAggregate(list).Error() does.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return ""
	case 1:
		return l[0].Error()
	}
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ToAggregate returns l as an error, or nil if l is empty.
func (l ErrorList) ToAggregate() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Filter returns the errors of l whose type is not among types.
func (l ErrorList) Filter(types ...ErrorType) ErrorList {
	var out ErrorList
	for _, e := range l {
		keep := true
		for _, t := range types {
			if e.Type == t {
				keep = false
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

func invalid(field string, value any, detail string) *FieldError {
	return &FieldError{Type: ErrorTypeInvalid, Field: field, BadValue: value, Detail: detail}
}

func required(field, detail string) *FieldError {
	return &FieldError{Type: ErrorTypeRequired, Field: field, Detail: detail}
}

func forbidden(field, detail string) *FieldError {
	return &FieldError{Type: ErrorTypeForbidden, Field: field, Detail: detail}
}

// tooMany is field.TooMany: a list of actual items where at most max are
// allowed.
func tooMany(field string, actual, max int) *FieldError {
	return &FieldError{Type: ErrorTypeTooMany, Field: field, BadValue: actual, Detail: fmt.Sprintf("must have at most %d items", max)}
}

func duplicate(field string, value any) *FieldError {
	return &FieldError{Type: ErrorTypeDuplicate, Field: field, BadValue: value}
}

// notSupported builds an Unsupported value error listing valid in the given
// order, as field.NotSupported.
func notSupported[T ~string](field string, value any, valid ...T) *FieldError {
	q := make([]string, len(valid))
	for i, v := range valid {
		q[i] = strconv.Quote(string(v))
	}
	detail := ""
	if len(q) > 0 {
		detail = "supported values: " + strings.Join(q, ", ")
	}
	return &FieldError{Type: ErrorTypeNotSupported, Field: field, BadValue: value, Detail: detail}
}

// child joins field path elements: child("spec", "containers") is
// "spec.containers".
func child(path string, names ...string) string {
	for _, n := range names {
		if path == "" {
			path = n
		} else {
			path += "." + n
		}
	}
	return path
}

// index is path[i].
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// key is path[k].
func key(path, k string) string { return path + "[" + k + "]" }
