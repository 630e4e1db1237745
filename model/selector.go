package model

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// LabelSelectorOperator is the operator of a LabelSelectorRequirement.
type LabelSelectorOperator string

// The label selector operators of metav1.LabelSelector.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelector is the structured selector of ReplicaSet and Deployment
// specs, as metav1.LabelSelector. Its requirements are ANDed.
//
// As metav1.LabelSelectorAsSelector: a nil *LabelSelector selects nothing,
// and an empty one (no MatchLabels, no MatchExpressions) selects everything.
// (Validation rejects both in ReplicaSet and Deployment specs.)
type LabelSelector struct {
	// MatchLabels requires each key to have exactly that value.
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions are set-based requirements.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one set-based requirement, as
// metav1.LabelSelectorRequirement.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	// Values must be non-empty for In and NotIn and empty for Exists and
	// DoesNotExist.
	Values []string `json:"values,omitempty"`
}

// DeepCopy returns a copy of s that shares no memory with it.
func (s *LabelSelector) DeepCopy() *LabelSelector {
	if s == nil {
		return nil
	}
	return &LabelSelector{MatchLabels: maps.Clone(s.MatchLabels),
		MatchExpressions: cloneEach(s.MatchExpressions, func(r, out *LabelSelectorRequirement) {
			*out = LabelSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
		})}
}

// AsSelector converts s to a Selector, as metav1.LabelSelectorAsSelector:
// nil gives Nothing(), empty gives Everything(), and an unknown operator or a
// malformed key or value is an error.
func (s *LabelSelector) AsSelector() (Selector, error) {
	if s == nil {
		return Nothing(), nil
	}
	if len(s.MatchLabels)+len(s.MatchExpressions) == 0 {
		return Everything(), nil
	}
	var reqs []Requirement
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		r, err := NewRequirement(k, OpEquals, []string{s.MatchLabels[k]})
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	for _, e := range s.MatchExpressions {
		var op Operator
		switch e.Operator {
		case LabelSelectorOpIn:
			op = OpIn
		case LabelSelectorOpNotIn:
			op = OpNotIn
		case LabelSelectorOpExists:
			op = OpExists
		case LabelSelectorOpDoesNotExist:
			op = OpDoesNotExist
		default:
			return Selector{}, fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
		r, err := NewRequirement(e.Key, op, e.Values)
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	return Everything().Add(reqs...), nil
}

// Matches reports whether labels satisfy s, with AsSelector's semantics: a
// nil selector matches nothing, an empty one everything, and an invalid one
// nothing.
func (s *LabelSelector) Matches(labels map[string]string) bool {
	sel, err := s.AsSelector()
	return err == nil && sel.Matches(labels)
}

// Operator is the operator of a parsed selector Requirement, as
// selection.Operator.
type Operator string

// The selector operators.
const (
	OpEquals       Operator = "="
	OpDoubleEquals Operator = "=="
	OpNotEquals    Operator = "!="
	OpIn           Operator = "in"
	OpNotIn        Operator = "notin"
	OpExists       Operator = "exists"
	OpDoesNotExist Operator = "!"
	OpGreaterThan  Operator = "gt"
	OpLessThan     Operator = "lt"
)

// Requirement is one term of a Selector: a key, an operator and values, as
// labels.Requirement. Build one with NewRequirement.
type Requirement struct {
	key      string
	operator Operator
	values   []string // sorted, de-duplicated
}

// NewRequirement checks and builds a requirement, as labels.NewRequirement:
// the key must be a qualified name; In and NotIn need at least one value;
// Equals, DoubleEquals and NotEquals exactly one; Exists and DoesNotExist
// none; GreaterThan and LessThan exactly one integer; every value must be a
// valid label value.
func NewRequirement(key string, op Operator, vals []string) (Requirement, error) {
	if errs := validateLabelName(key, "key"); len(errs) > 0 {
		return Requirement{}, errs.ToAggregate()
	}
	bad := func(detail string) (Requirement, error) {
		return Requirement{}, &FieldError{Type: ErrorTypeInvalid, Field: "values", BadValue: vals, Detail: detail}
	}
	switch op {
	case OpIn, OpNotIn:
		if len(vals) == 0 {
			return bad("for 'in', 'notin' operators, values set can't be empty")
		}
	case OpEquals, OpDoubleEquals, OpNotEquals:
		if len(vals) != 1 {
			return bad("exact-match compatibility requires one single value")
		}
	case OpExists, OpDoesNotExist:
		if len(vals) != 0 {
			return bad("values set must be empty for exists and does not exist")
		}
	case OpGreaterThan, OpLessThan:
		if len(vals) != 1 {
			return bad("for 'Gt', 'Lt' operators, exactly one value is required")
		}
		if _, err := strconv.ParseInt(vals[0], 10, 64); err != nil {
			return Requirement{}, &FieldError{Type: ErrorTypeInvalid, Field: "values[0]", BadValue: vals[0], Detail: "for 'Gt', 'Lt' operators, the value must be an integer"}
		}
	default:
		return Requirement{}, &FieldError{Type: ErrorTypeNotSupported, Field: "operator", BadValue: string(op),
			Detail: `supported values: "=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"`}
	}
	for i, v := range vals {
		if errs := validateLabelValue(v, fmt.Sprintf("values[%d]", i)); len(errs) > 0 {
			return Requirement{}, errs.ToAggregate()
		}
	}
	sorted := slices.Clone(vals)
	sort.Strings(sorted)
	uniq := sorted[:0]
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			uniq = append(uniq, v)
		}
	}
	return Requirement{key: key, operator: op, values: uniq}, nil
}

// Key returns the requirement's label key.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator.
func (r Requirement) Operator() Operator { return r.operator }

// Values returns a copy of the requirement's values, sorted.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

func (r Requirement) has(v string) bool {
	i := sort.SearchStrings(r.values, v)
	return i < len(r.values) && r.values[i] == v
}

// Matches reports whether labels satisfy r, as labels.Requirement.Matches:
// In/Equals need the key present with a listed value; NotIn/NotEquals are
// satisfied by an absent key; Gt/Lt need an integer label value.
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.operator {
	case OpIn, OpEquals, OpDoubleEquals:
		return ok && r.has(v)
	case OpNotIn, OpNotEquals:
		return !ok || !r.has(v)
	case OpExists:
		return ok
	case OpDoesNotExist:
		return !ok
	case OpGreaterThan, OpLessThan:
		if !ok {
			return false
		}
		lv, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		rv, _ := strconv.ParseInt(r.values[0], 10, 64)
		if r.operator == OpGreaterThan {
			return lv > rv
		}
		return lv < rv
	}
	return false
}

// String prints r in the selector string syntax, e.g. "env in (a,b)". Like
// apimachinery's Requirement.String (pkg/labels/selector.go), it never
// fails: a zero Requirement, with no key, operator or values, prints "".
func (r Requirement) String() string {
	values := strings.Join(r.values, ",")
	switch r.operator {
	case OpExists:
		return r.key
	case OpDoesNotExist:
		return "!" + r.key
	case OpIn, OpNotIn:
		return r.key + " " + string(r.operator) + " (" + values + ")"
	case OpGreaterThan:
		return r.key + ">" + values
	case OpLessThan:
		return r.key + "<" + values
	}
	return r.key + string(r.operator) + values
}

// Selector is a parsed label selector: requirements ANDed, as
// labels.Selector. The zero Selector, like Everything(), matches every label
// set; Nothing() matches none.
type Selector struct {
	reqs    []Requirement // sorted by key, stable
	nothing bool
}

// Everything returns the selector that matches every label set.
func Everything() Selector { return Selector{} }

// Nothing returns the selector that matches no label set.
func Nothing() Selector { return Selector{nothing: true} }

// SelectorFromSet returns the selector requiring each of set's key=value
// pairs, as labels.SelectorFromSet (an empty set selects everything). It
// panics on an invalid key or value, so it is for label sets that passed
// validation; build untrusted input with NewRequirement.
func SelectorFromSet(set map[string]string) Selector {
	var reqs []Requirement
	for _, k := range slices.Sorted(maps.Keys(set)) {
		r, err := NewRequirement(k, OpEquals, []string{set[k]})
		if err != nil {
			panic(err)
		}
		reqs = append(reqs, r)
	}
	return Everything().Add(reqs...)
}

// Add returns s with reqs added (s is unchanged).
func (s Selector) Add(reqs ...Requirement) Selector {
	if s.nothing {
		return s
	}
	out := Selector{reqs: append(append(make([]Requirement, 0, len(s.reqs)+len(reqs)), s.reqs...), reqs...)}
	sort.SliceStable(out.reqs, func(i, j int) bool { return out.reqs[i].key < out.reqs[j].key })
	return out
}

// Matches reports whether labels satisfy every requirement of s.
func (s Selector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for _, r := range s.reqs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether s has no requirements (it is Everything()).
func (s Selector) Empty() bool { return !s.nothing && len(s.reqs) == 0 }

// Requirements returns s's requirements, sorted by key.
func (s Selector) Requirements() []Requirement {
	return append([]Requirement(nil), s.reqs...)
}

// String prints s in the selector string syntax, requirements sorted by key
// and values sorted, so that ParseSelector(s.String()) gives s back. Nothing
// and Everything both print as "".
func (s Selector) String() string {
	if s.nothing {
		return ""
	}
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}
