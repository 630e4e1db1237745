package model

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestQuantityParseFormat(t *testing.T) {
	cases := []struct {
		name   ResourceName
		in     string
		want   Quantity
		format string
	}{
		{ResourceCPU, "500m", 500, "500m"},
		{ResourceCPU, "2", 2000, "2"},
		{ResourceCPU, "0.5", 500, "500m"},
		{ResourceCPU, "1.5", 1500, "1500m"},
		{ResourceCPU, "0.0001", 1, "1m"}, // rounded up, as MilliValue
		{ResourceCPU, "100u", 1, "1m"},
		{ResourceCPU, "1k", 1000000, "1k"},
		{ResourceMemory, "128Mi", 128 << 20, "128Mi"},
		{ResourceMemory, "1Gi", 1 << 30, "1Gi"},
		{ResourceMemory, "1G", 1e9, "1G"},
		{ResourceMemory, "3k", 3000, "3k"},
		{ResourceMemory, "1000000000", 1e9, "1G"}, // DecimalSI, largest exact suffix
		// a real Quantity prints "1e3" (it remembers DecimalExponent); a
		// ResourceList infers DecimalSI (internal/fidelity divergences)
		{ResourceMemory, "1e3", 1000, "1k"},
		{ResourceMemory, "1536Ki", 1536 << 10, "1536Ki"},
		{ResourceMemory, "0", 0, "0"},
		{ResourceMemory, "1.5Ki", 1536, "1536"},
		{ResourcePods, "110", 110, "110"},
		{ResourceCPU, "-1", -1000, "-1"},
	}
	for _, c := range cases {
		t.Run(string(c.name)+"="+c.in, func(t *testing.T) {
			q, err := ParseQuantity(c.name, c.in)
			require.NoError(t, err)
			assert.Equal(t, c.want, q)
			assert.Equal(t, c.format, FormatQuantity(c.name, q))
			back, err := ParseQuantity(c.name, FormatQuantity(c.name, q))
			require.NoError(t, err)
			assert.Equal(t, q, back)
		})
	}
	// "m" alone is 0 for apimachinery (an empty number before a suffix), so
	// it is not among these; see TestExactQuantityParseLikeApimachinery.
	for _, bad := range []string{"", "lots", "1/2", "1 Gi", "0x10", "1Qi", "12345678901234567890123E"} {
		_, err := ParseQuantity(ResourceMemory, bad)
		assert.Error(t, err, bad)
	}
}

func TestResourceListArithmetic(t *testing.T) {
	a := ResourceListOf("cpu", "1", "memory", "1Gi")
	b := ResourceListOf("cpu", "250m", "pods", "1")
	sum := a.Add(b)
	assert.Equal(t, ResourceList{ResourceCPU: 1250, ResourceMemory: 1 << 30, ResourcePods: 1}, sum)
	assert.Equal(t, ResourceListOf("cpu", "1", "memory", "1Gi"), a, "Add leaves its arguments alone")
	diff := a.Sub(b)
	assert.Equal(t, ResourceList{ResourceCPU: 750, ResourceMemory: 1 << 30, ResourcePods: -1}, diff)
	assert.Equal(t, ResourceList{ResourceCPU: 5}, ResourceList(nil).Add(ResourceList{ResourceCPU: 5}))
	assert.Equal(t, "cpu=1250m,memory=1Gi,pods=1", sum.String())

	alloc := ResourceListOf("cpu", "2", "memory", "4Gi", "pods", "110")
	assert.True(t, Fits(ResourceListOf("cpu", "2", "memory", "4Gi"), alloc), "an exact fit fits")
	assert.True(t, Fits(nil, alloc))
	assert.False(t, Fits(ResourceListOf("cpu", "2001m"), alloc))
	name, ok := FirstInsufficient(ResourceListOf("memory", "5Gi", "cpu", "3"), alloc)
	assert.False(t, ok)
	assert.Equal(t, ResourceCPU, name, "the first insufficient resource in name order")
	assert.False(t, Fits(ResourceList{"gpus": 1}, alloc), "a resource the node lacks counts as zero")

	pod := validPod()
	pod.Spec.Containers = append(pod.Spec.Containers, Container{Name: "side", Image: "b",
		Resources: ResourceRequirements{Requests: ResourceListOf("cpu", "50m")}})
	assert.Equal(t, ResourceList{ResourceCPU: 150, ResourceMemory: 64 << 20}, PodRequests(pod))
}

// TestParseQuantityFastPathAgrees: the integer fast path gives what the
// exact path gives, for every suffix and for cpu and memory.
func TestParseQuantityFastPathAgrees(t *testing.T) {
	for _, name := range []ResourceName{ResourceCPU, ResourceMemory, ResourcePods} {
		for _, sfx := range append([]string{""}, suffixNames()...) {
			for _, digits := range []string{"0", "1", "7", "250", "999", "1000", "123456789012"} {
				s := digits + sfx
				want, wantErr := parseQuantityExact(name, s)
				got, err := ParseQuantity(name, s)
				if wantErr != nil {
					require.Error(t, err, s)
					continue
				}
				require.NoError(t, err, s)
				require.Equal(t, want, got, "%s %s", name, s)
			}
		}
	}
}

func suffixNames() []string {
	var out []string
	for _, sfx := range quantitySuffixes {
		out = append(out, sfx.suffix)
	}
	return out
}

// parseQuantityExact is ParseQuantity without its fast path.
func parseQuantityExact(name ResourceName, s string) (Quantity, error) {
	return parseQuantity(name, s, false)
}

// TestResourceListDecodesLikeQuantity: a resource list's values decode as
// apimachinery's Quantity.UnmarshalJSON (pkg/api/resource/quantity.go)
// does: a quoted string, a JSON number, surrounding spaces trimmed, null
// as zero; anything ParseQuantity refuses is an error.
func TestResourceListDecodesLikeQuantity(t *testing.T) {
	cases := []struct {
		in   string
		want ResourceList
		err  bool
	}{
		{`{"cpu":"500m","memory":"128Mi"}`, ResourceList{ResourceCPU: 500, ResourceMemory: 128 << 20}, false},
		{`{"cpu":1}`, ResourceList{ResourceCPU: 1000}, false},
		{`{"cpu":" 1 ","memory":" 1Gi"}`, ResourceList{ResourceCPU: 1000, ResourceMemory: 1 << 30}, false},
		{`{"cpu":null}`, ResourceList{ResourceCPU: 0}, false},
		{`{"cpu":"1 core"}`, nil, true},
		{`{"cpu":true}`, nil, true},
	}
	for _, c := range cases {
		var got ResourceList
		err := json.Unmarshal([]byte(c.in), &got)
		if c.err {
			require.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
}

// TestFormatQuantityFastPathAgrees: FormatQuantity's int64 path prints what
// ExactQuantity.String prints for the same amount and inferred format.
func TestFormatQuantityFastPathAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]ResourceName{ResourceCPU, ResourceMemory, ResourcePods}).Draw(t, "name")
		q := Quantity(rapid.OneOf(
			rapid.Int64(),
			rapid.Map(rapid.Int64Range(-1<<20, 1<<20), func(v int64) int64 { return v << 10 }),
			rapid.Map(rapid.Int64Range(-100000, 100000), func(v int64) int64 { return v * 1000000 }),
		).Draw(t, "q"))
		exp := 0
		if name == ResourceCPU {
			exp = -3
		}
		want := NewExactQuantity(int64(q), exp, quantityFormatFor(name, q)).String()
		if got, ok := formatSmallQuantity(int64(q), exp, quantityFormatFor(name, q)); ok {
			require.Equal(t, want, got)
		}
		require.Equal(t, want, FormatQuantity(name, q))
		back, err := ParseQuantity(name, want)
		require.NoError(t, err)
		wantBack := q
		if int64(q) == math.MinInt64 && quantityFormatFor(name, q) == BinarySI {
			// apimachinery caps a binary amount's magnitude at 2^63-1
			// (pkg/api/resource/quantity.go, ParseQuantity), so -2^63
			// bytes, printed "-8Ei", reads back as -(2^63-1).
			wantBack = -math.MaxInt64
		}
		require.Equal(t, wantBack, back, "printing then parsing gives the amount back")
	})
}
