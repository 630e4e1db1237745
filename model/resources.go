package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
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
	if l == nil {
		return nil
	}
	out := make(ResourceList, len(l))
	// determinism: copying every entry; the order cannot show.
	for k, v := range l {
		out[k] = v
	}
	return out
}

// Names returns the resource names in l in ascending order.
func (l ResourceList) Names() []ResourceName {
	names := make([]ResourceName, 0, len(l))
	// determinism: collection only; sorted below.
	for k := range l {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Add returns l+o, resource by resource (a resource missing on one side
// counts as zero). Neither argument is modified.
func (l ResourceList) Add(o ResourceList) ResourceList {
	out := l.DeepCopy()
	if out == nil {
		out = ResourceList{}
	}
	for _, k := range o.Names() {
		out[k] += o[k]
	}
	return out
}

// Sub returns l-o, resource by resource; results may be negative. Neither
// argument is modified.
func (l ResourceList) Sub(o ResourceList) ResourceList {
	out := l.DeepCopy()
	if out == nil {
		out = ResourceList{}
	}
	for _, k := range o.Names() {
		out[k] -= o[k]
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

// FormatQuantity prints q the way Kubernetes prints a canonical quantity of
// resource name: cpu as whole cores ("2") or millicores ("500m"); memory in
// the largest binary suffix that divides it exactly ("128Mi", "1Gi"), else
// plain bytes; anything else as a plain integer.
func FormatQuantity(name ResourceName, q Quantity) string {
	switch name {
	case ResourceCPU:
		if q%1000 == 0 {
			return strconv.FormatInt(int64(q)/1000, 10)
		}
		return strconv.FormatInt(int64(q), 10) + "m"
	case ResourceMemory:
		if q == 0 {
			return "0"
		}
		suffixes := []string{"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"}
		for i, s := range suffixes {
			unit := int64(1) << (10 * (6 - i))
			if int64(q)%unit == 0 {
				return strconv.FormatInt(int64(q)/unit, 10) + s
			}
		}
	}
	return strconv.FormatInt(int64(q), 10)
}

// quantitySuffixes are the suffixes resource.Quantity accepts, as exact
// multipliers.
var quantitySuffixes = []struct {
	suffix string
	num    int64
	den    int64
}{
	{"Ki", 1 << 10, 1}, {"Mi", 1 << 20, 1}, {"Gi", 1 << 30, 1}, {"Ti", 1 << 40, 1}, {"Pi", 1 << 50, 1}, {"Ei", 1 << 60, 1},
	{"n", 1, 1e9}, {"u", 1, 1e6}, {"m", 1, 1e3}, {"k", 1e3, 1}, {"M", 1e6, 1}, {"G", 1e9, 1}, {"T", 1e12, 1}, {"P", 1e15, 1}, {"E", 1e18, 1},
}

// ParseQuantity parses a Kubernetes quantity string ("500m", "0.5", "2",
// "128Mi", "1G", "1e3") into resource name's canonical unit. As
// resource.Quantity's MilliValue and Value do, a fractional result is rounded
// up (0.0001 cpu is 1m).
func ParseQuantity(name ResourceName, s string) (Quantity, error) {
	return parseQuantity(name, s, true)
}

// parseQuantity is ParseQuantity; fast allows the integer fast path.
func parseQuantity(name ResourceName, s string, fast bool) (Quantity, error) {
	num := s
	mulNum, mulDen := int64(1), int64(1)
	for _, sfx := range quantitySuffixes {
		if strings.HasSuffix(s, sfx.suffix) && len(s) > len(sfx.suffix) {
			num = strings.TrimSuffix(s, sfx.suffix)
			mulNum, mulDen = sfx.num, sfx.den
			break
		}
	}
	scale := int64(1) // cpu is counted in millicores
	if name == ResourceCPU {
		scale = 1000
	}
	if fast && mulNum <= (1<<62)/1_000_000_000_000/scale {
		if q, ok := parseSmallQuantity(num, mulNum*scale, mulDen); ok {
			return q, nil
		}
	}
	mul := big.NewRat(mulNum, mulDen)
	if num == "" || strings.ContainsAny(num, " _/") || strings.HasPrefix(num, "0x") {
		return 0, fmt.Errorf("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': %q", s)
	}
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': %q", s)
	}
	v.Mul(v, mul)
	v.Mul(v, big.NewRat(scale, 1))
	// round up (towards +inf), as Quantity.ScaledValue does
	q := new(big.Int).Quo(v.Num(), v.Denom())
	if new(big.Rat).SetInt(q).Cmp(v) < 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("quantity %q is out of range", s)
	}
	return Quantity(q.Int64()), nil
}

// parseSmallQuantity is ParseQuantity's fast path for the common case, a
// plain decimal integer of at most 12 digits ("500", "128") times an
// integer-friendly multiplier: ceil(digits * mulNum / mulDen) in int64
// arithmetic, without overflow. ok is false for anything else (a sign, a
// fraction, an exponent, a huge value), which the exact path handles.
func parseSmallQuantity(num string, mulNum, mulDen int64) (Quantity, bool) {
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
	if mulNum > (1<<62)/1_000_000_000_000 { // d*mulNum could overflow (callers check too)
		return 0, false
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
