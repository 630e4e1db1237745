package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// IntOrStringType says which member of an IntOrString is set.
type IntOrStringType int

// The two kinds of IntOrString.
const (
	// Int means IntVal holds the value.
	Int IntOrStringType = iota
	// String means StrVal holds the value (for the fields here, a percentage
	// such as "25%").
	String
)

// IntOrString holds an int32 or a string, as intstr.IntOrString; it encodes
// as a bare JSON number or string.
type IntOrString struct {
	Type   IntOrStringType
	IntVal int32
	StrVal string
}

// FromInt returns an IntOrString holding i.
func FromInt(i int) IntOrString { return IntOrString{Type: Int, IntVal: int32(i)} }

// FromString returns an IntOrString holding s, e.g. "25%".
func FromString(s string) IntOrString { return IntOrString{Type: String, StrVal: s} }

// String returns the value as written: "3" or "25%".
func (v IntOrString) String() string {
	if v.Type == String {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// MarshalJSON encodes v as a JSON number or string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == String {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON accepts a JSON number or string.
func (v *IntOrString) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		v.Type, v.IntVal = String, 0
		return json.Unmarshal(data, &v.StrVal)
	}
	v.Type, v.StrVal = Int, ""
	return json.Unmarshal(data, &v.IntVal)
}

// GetScaledValueFromIntOrPercent resolves intOrPercent against total, as
// intstr.GetScaledValueFromIntOrPercent: an int is returned as is; a
// percentage "p%" gives p*total/100, rounded up if roundUp and down
// otherwise. Deployments round maxSurge up and maxUnavailable down, so "25%"
// of 3 replicas allows a surge of 1 but 0 unavailable. A string that is not a
// percentage, and nil, are errors.
func GetScaledValueFromIntOrPercent(intOrPercent *IntOrString, total int, roundUp bool) (int, error) {
	if intOrPercent == nil {
		return 0, fmt.Errorf("nil value for IntOrString")
	}
	value, isPercent, err := intOrPercentValue(intOrPercent)
	if err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: %v", err)
	}
	if !isPercent {
		return value, nil
	}
	n := int64(value) * int64(total)
	q, r := n/100, n%100
	if r != 0 && roundUp == (n > 0) {
		// round away from the truncated quotient in the requested direction
		if roundUp {
			q++
		} else {
			q--
		}
	}
	return int(q), nil
}

// intOrPercentValue returns the number in v and whether it is a percentage.
func intOrPercentValue(v *IntOrString) (int, bool, error) {
	switch v.Type {
	case Int:
		return int(v.IntVal), false, nil
	case String:
		s := strings.TrimSuffix(v.StrVal, "%")
		if s == v.StrVal {
			return 0, false, fmt.Errorf("invalid type: string is not a percentage")
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, false, fmt.Errorf("invalid value %q: %v", v.StrVal, err)
		}
		return n, true, nil
	}
	return 0, false, fmt.Errorf("invalid type: neither int nor percentage")
}
