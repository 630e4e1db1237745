package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ResourceName names a compute resource, as corev1.ResourceName.
type ResourceName string

// The resources kubesim models.
const (
	// ResourceCPU is CPU; its Quantity is in millicores ("500m" is 500).
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory; its Quantity is in bytes ("128Mi" is
	// 134217728).
	ResourceMemory ResourceName = "memory"
	// ResourcePods is the number of pods a node can run; its Quantity is a
	// count.
	ResourcePods ResourceName = "pods"
)

// Quantity is an amount of one resource as a plain int64 in the resource's
// canonical unit: millicores for cpu, bytes for memory, a count for anything
// else. It stands in for resource.Quantity; the unit depends on the
// ResourceName it is stored under, so it is formatted and parsed with
// FormatQuantity and ParseQuantity. Arithmetic is exact integer arithmetic.
type Quantity int64

// ResourceList maps resources to quantities, as corev1.ResourceList. On the
// wire it uses Kubernetes' string forms ({"cpu":"500m","memory":"128Mi"}).
type ResourceList map[ResourceName]Quantity

// DeepCopy returns a copy of l that shares no memory with it.
func (l ResourceList) DeepCopy() ResourceList {
	return maps.Clone(l)
}

// Names returns the resource names in l in ascending order.
func (l ResourceList) Names() []ResourceName {
	names := make([]ResourceName, 0, len(l))
	// determinism: collection only; sorted below.
	for k := range l {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Add returns l+o, resource by resource (a resource missing on one side
// counts as zero). Neither argument is modified.
func (l ResourceList) Add(o ResourceList) ResourceList { return l.plus(o, 1) }

// Sub returns l-o, resource by resource; results may be negative. Neither
// argument is modified.
func (l ResourceList) Sub(o ResourceList) ResourceList { return l.plus(o, -1) }

// plus returns l+sign*o, resource by resource, in a new list (sign is 1 or
// -1; int64 arithmetic wraps alike either way).
func (l ResourceList) plus(o ResourceList, sign Quantity) ResourceList {
	out := l.DeepCopy()
	if out == nil {
		out = ResourceList{}
	}
	for _, k := range o.Names() {
		out[k] += sign * o[k]
	}
	return out
}

// Fits reports whether request fits in available: for every resource in
// request, the requested amount is at most what is available (a resource
// missing from available counts as zero).
func Fits(request, available ResourceList) bool {
	_, ok := FirstInsufficient(request, available)
	return ok
}

// FirstInsufficient returns the first resource (in name order) for which
// request exceeds available, and false; or "", true if request fits. The
// scheduler uses it to name the reason a node was filtered out
// ("Insufficient cpu").
func FirstInsufficient(request, available ResourceList) (ResourceName, bool) {
	for _, k := range request.Names() {
		if request[k] > available[k] {
			return k, false
		}
	}
	return "", true
}

// String formats l in name order, e.g. "cpu=500m,memory=128Mi".
func (l ResourceList) String() string {
	parts := make([]string, 0, len(l))
	for _, k := range l.Names() {
		parts = append(parts, string(k)+"="+FormatQuantity(k, l[k]))
	}
	return strings.Join(parts, ",")
}

// MarshalJSON encodes l with Kubernetes' quantity strings; encoding/json
// sorts the keys.
func (l ResourceList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	m := make(map[string]string, len(l))
	for _, k := range l.Names() {
		m[string(k)] = FormatQuantity(k, l[k])
	}
	return json.Marshal(m)
}

// UnmarshalJSON decodes quantities such as "500m" or "128Mi". As
// apimachinery's Quantity.UnmarshalJSON (pkg/api/resource/quantity.go), a
// value may also be a JSON number (1) or carry surrounding spaces
// (" 1Gi "): the quotes are stripped, the spaces trimmed, and null is zero.
func (l *ResourceList) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil {
		*l = nil
		return nil
	}
	out := make(ResourceList, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := string(m[k])
		if v == "null" {
			out[ResourceName(k)] = 0
			continue
		}
		if n := len(v); n >= 2 && v[0] == '"' && v[n-1] == '"' {
			v = v[1 : n-1]
		}
		q, err := ParseQuantity(ResourceName(k), strings.TrimSpace(v))
		if err != nil {
			return err
		}
		out[ResourceName(k)] = q
	}
	*l = out
	return nil
}

// FormatQuantity prints q the way a real API server prints the canonical
// quantity of resource name (ExactQuantity.String, after apimachinery's
// Quantity.CanonicalizeBytes). A ResourceList keeps amounts, not the suffix
// family each was written in, so the family is inferred: memory that is a
// whole number of KiB prints in BinarySI ("128Mi", "1536Ki"), any other
// amount in DecimalSI ("1G", "3k", "500m", "2"). See quantityFormatFor.
func FormatQuantity(name ResourceName, q Quantity) string {
	exp := 0
	if name == ResourceCPU {
		exp = -3 // millicores
	}
	format := quantityFormatFor(name, q)
	if s, ok := formatSmallQuantity(int64(q), exp, format); ok {
		return s
	}
	return NewExactQuantity(int64(q), exp, format).String()
}

// quantityFormatFor is the suffix family FormatQuantity prints an amount
// of resource name in: BinarySI for memory that is a nonzero multiple of
// 1024 bytes (what the kubelet reports and what "Mi"/"Gi" requests give),
// DecimalSI otherwise. A real Quantity remembers the family it was parsed
// from, so a memory amount written in decimal that happens to be a
// multiple of 1024 ("4096") prints "4Ki" here, and cpu written in BinarySI
// or e-notation prints in DecimalSI (listed in internal/fidelity).
func quantityFormatFor(name ResourceName, q Quantity) QuantityFormat {
	if name == ResourceMemory && q != 0 && q%1024 == 0 {
		return BinarySI
	}
	return DecimalSI
}

// formatSmallQuantity is ExactQuantity.String for v*10^exp in int64
// arithmetic; ok is false if that could overflow (the caller then uses the
// exact path). TestFormatQuantityFastPathAgrees holds the two together.
func formatSmallQuantity(v int64, exp int, format QuantityFormat) (string, bool) {
	if v == 0 {
		return "0", true
	}
	if v == math.MinInt64 {
		return "", false
	}
	neg := v < 0
	if neg {
		v = -v
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if format == BinarySI && exp == 0 && v >= 1024 {
		e := 0
		for v%1024 == 0 && e < len(binarySuffixes)-1 {
			v /= 1024
			e++
		}
		return sign + strconv.FormatInt(v, 10) + binarySuffixes[e], true
	}
	if format != DecimalSI && format != BinarySI {
		return "", false
	}
	for v%10 == 0 {
		v /= 10
		exp++
	}
	for exp%3 != 0 {
		if v > math.MaxInt64/10 {
			return "", false
		}
		v *= 10
		exp--
	}
	i := exp/3 + 3
	if i < 0 || i >= len(decimalSuffixes) {
		return "", false
	}
	return sign + strconv.FormatInt(v, 10) + decimalSuffixes[i], true
}

// ParseQuantity parses a Kubernetes quantity string ("500m", "0.5", "2",
// "128Mi", "1G", "1e3") as ParseExactQuantity and returns it in resource
// name's canonical unit: cpu as MilliValue, anything else as Value, both
// rounded up away from zero as apimachinery rounds (0.0001 cpu is 1m). An
// amount that does not fit that int64 unit is an error here, though a real
// API server stores it (listed in internal/fidelity).
func ParseQuantity(name ResourceName, s string) (Quantity, error) {
	return parseQuantity(name, s, true)
}

// parseQuantity is ParseQuantity; fast allows the integer fast path.
func parseQuantity(name ResourceName, s string, fast bool) (Quantity, error) {
	if fast {
		if q, ok := parseSmallQuantity(name, s); ok {
			return q, nil
		}
	}
	eq, err := ParseExactQuantity(s)
	if err != nil {
		return 0, err
	}
	var v int64
	var ok bool
	if name == ResourceCPU {
		v, ok = eq.MilliValue()
	} else {
		v, ok = eq.Value()
	}
	if !ok {
		return 0, fmt.Errorf("quantity %q of %s is out of the range kubesim supports (an int64 count of %s)", s, name, unitOf(name))
	}
	return Quantity(v), nil
}

// unitOf names the unit a Quantity of resource name counts.
func unitOf(name ResourceName) string {
	switch name {
	case ResourceCPU:
		return "millicores"
	case ResourceMemory:
		return "bytes"
	}
	return "units"
}

// quantitySuffixes are the suffixes parseSmallQuantity handles, as exact
// multipliers.
var quantitySuffixes = []struct {
	suffix string
	num    int64
	den    int64
}{
	{"Ki", 1 << 10, 1}, {"Mi", 1 << 20, 1}, {"Gi", 1 << 30, 1}, {"Ti", 1 << 40, 1}, {"Pi", 1 << 50, 1}, {"Ei", 1 << 60, 1},
	{"n", 1, 1e9}, {"u", 1, 1e6}, {"m", 1, 1e3}, {"k", 1e3, 1}, {"M", 1e6, 1}, {"G", 1e9, 1}, {"T", 1e12, 1}, {"P", 1e15, 1}, {"E", 1e18, 1},
}

// parseSmallQuantity is ParseQuantity's fast path for the common case, a
// plain decimal integer of 1 to 12 digits ("500", "128") with no suffix or
// a plain one: ceil(digits * multiplier) in int64 arithmetic, without
// overflow. ok is false for anything else (a sign, a fraction, an
// exponent, a huge value), which the exact path handles.
func parseSmallQuantity(name ResourceName, s string) (Quantity, bool) {
	num := s
	mulNum, mulDen := int64(1), int64(1)
	for _, sfx := range quantitySuffixes {
		if strings.HasSuffix(s, sfx.suffix) {
			num = strings.TrimSuffix(s, sfx.suffix)
			mulNum, mulDen = sfx.num, sfx.den
			break
		}
	}
	if mulNum > (1<<62)/1_000_000_000_000_000 { // d*mulNum*1000 could overflow
		return 0, false
	}
	if name == ResourceCPU {
		mulNum *= 1000
	}
	return parseSmallDigits(num, mulNum, mulDen)
}

// parseSmallDigits is ceil(num * mulNum / mulDen) for num a plain decimal
// integer of 1 to 12 digits; ok is false for anything else.
func parseSmallDigits(num string, mulNum, mulDen int64) (Quantity, bool) {
	if len(num) == 0 || len(num) > 12 {
		return 0, false
	}
	var d int64
	for i := 0; i < len(num); i++ {
		c := num[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d = d*10 + int64(c-'0')
	}
	p := d * mulNum
	q := p / mulDen
	if p%mulDen != 0 {
		q++ // round up, as the exact path does
	}
	return Quantity(q), true
}

// MustParseQuantity is ParseQuantity that panics on a malformed string, for
// tests and literals.
func MustParseQuantity(name ResourceName, s string) Quantity {
	q, err := ParseQuantity(name, s)
	if err != nil {
		panic(err)
	}
	return q
}

// ResourceListOf builds a ResourceList from Kubernetes quantity strings,
// e.g. ResourceListOf("cpu", "500m", "memory", "128Mi"); it panics on a
// malformed argument, so it is for literals.
func ResourceListOf(pairs ...string) ResourceList {
	if len(pairs)%2 != 0 {
		panic("model.ResourceListOf: odd number of arguments")
	}
	out := ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		name := ResourceName(pairs[i])
		out[name] = MustParseQuantity(name, pairs[i+1])
	}
	return out
}
