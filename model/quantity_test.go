package model

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases below are the facts of apimachinery's unit tables for
// resource.Quantity (k8s.io/apimachinery pkg/api/resource/quantity_test.go:
// TestQuantityParse, TestQuantityString, TestQuantityParseEmit,
// TestQuantityCmp, TestNewSet, TestMilliNewSet, TestNewScaledSet,
// TestScaledValue), written as kubesim's own tables against ExactQuantity.

// dq is unscaled*10^exponent in format (the upstream tables' decQuantity).
func dq(unscaled int64, exponent int, format QuantityFormat) ExactQuantity {
	return NewExactQuantity(unscaled, exponent, format)
}

// upstreamParseCases: TestQuantityParse's table, input -> value and format.
var upstreamParseCases = []struct {
	in   string
	want ExactQuantity
}{
	{"0", dq(0, 0, DecimalSI)}, {"0n", dq(0, 0, DecimalSI)}, {"0u", dq(0, 0, DecimalSI)},
	{"0m", dq(0, 0, DecimalSI)}, {"0Ki", dq(0, 0, BinarySI)}, {"0k", dq(0, 0, DecimalSI)},
	{"0Mi", dq(0, 0, BinarySI)}, {"0M", dq(0, 0, DecimalSI)}, {"0Gi", dq(0, 0, BinarySI)},
	{"0G", dq(0, 0, DecimalSI)}, {"0Ti", dq(0, 0, BinarySI)}, {"0T", dq(0, 0, DecimalSI)},
	{"1", dq(1, 0, DecimalSI)},
	{"1Ki", dq(1024, 0, BinarySI)}, {"8Ki", dq(8*1024, 0, BinarySI)}, {"7Mi", dq(7<<20, 0, BinarySI)},
	{"6Gi", dq(6<<30, 0, BinarySI)}, {"5Ti", dq(5<<40, 0, BinarySI)}, {"4Pi", dq(4<<50, 0, BinarySI)},
	{"3Ei", dq(3<<60, 0, BinarySI)}, {"10Ti", dq(10<<40, 0, BinarySI)}, {"100Ti", dq(100<<40, 0, BinarySI)},
	{"5n", dq(5, -9, DecimalSI)}, {"4u", dq(4, -6, DecimalSI)}, {"3m", dq(3, -3, DecimalSI)},
	{"9", dq(9, 0, DecimalSI)}, {"8k", dq(8, 3, DecimalSI)}, {"50k", dq(5, 4, DecimalSI)},
	{"7M", dq(7, 6, DecimalSI)}, {"6G", dq(6, 9, DecimalSI)}, {"5T", dq(5, 12, DecimalSI)},
	{"40T", dq(4, 13, DecimalSI)}, {"300T", dq(3, 14, DecimalSI)}, {"2P", dq(2, 15, DecimalSI)},
	{"1E", dq(1, 18, DecimalSI)},
	{"1E-3", dq(1, -3, DecimalExponent)}, {"1e3", dq(1, 3, DecimalExponent)}, {"1E6", dq(1, 6, DecimalExponent)},
	{"1e9", dq(1, 9, DecimalExponent)}, {"1E12", dq(1, 12, DecimalExponent)}, {"1e15", dq(1, 15, DecimalExponent)},
	{"1E18", dq(1, 18, DecimalExponent)},
	{"1e14", dq(1, 14, DecimalExponent)}, {"1e13", dq(1, 13, DecimalExponent)}, {"1e3", dq(1, 3, DecimalExponent)},
	{"100.035k", dq(100035, 0, DecimalSI)},
	{"0.001", dq(1, -3, DecimalSI)}, {"0.0005k", dq(5, -1, DecimalSI)}, {"0.005", dq(5, -3, DecimalSI)},
	{"0.05", dq(5, -2, DecimalSI)}, {"0.5", dq(5, -1, DecimalSI)}, {"0.00050k", dq(5, -1, DecimalSI)},
	{"0.00500", dq(5, -3, DecimalSI)}, {"0.05000", dq(5, -2, DecimalSI)}, {"0.50000", dq(5, -1, DecimalSI)},
	{"0.5e0", dq(5, -1, DecimalExponent)}, {"0.5e-1", dq(5, -2, DecimalExponent)}, {"0.5e-2", dq(5, -3, DecimalExponent)},
	{"0.5e0", dq(5, -1, DecimalExponent)}, {"10.035M", dq(10035, 3, DecimalSI)},
	{"1.2e3", dq(12, 2, DecimalExponent)}, {"1.3E+6", dq(13, 5, DecimalExponent)}, {"1.40e9", dq(14, 8, DecimalExponent)},
	{"1.53E12", dq(153, 10, DecimalExponent)}, {"1.6e15", dq(16, 14, DecimalExponent)}, {"1.7E18", dq(17, 17, DecimalExponent)},
	{"9.01", dq(901, -2, DecimalSI)}, {"8.1k", dq(81, 2, DecimalSI)}, {"7.123456M", dq(7123456, 0, DecimalSI)},
	{"6.987654321G", dq(6987654321, 0, DecimalSI)}, {"5.444T", dq(5444, 9, DecimalSI)}, {"40.1T", dq(401, 11, DecimalSI)},
	{"300.2T", dq(3002, 11, DecimalSI)}, {"2.5P", dq(25, 14, DecimalSI)}, {"1.01E", dq(101, 16, DecimalSI)},
	// rounded up to a whole nano, or capped (BinarySI only)
	{"3.001n", dq(4, -9, DecimalSI)}, {"1.1E-9", dq(2, -9, DecimalExponent)}, {"0.0000000001", dq(1, -9, DecimalSI)},
	{"0.0000000005", dq(1, -9, DecimalSI)}, {"0.00000000050", dq(1, -9, DecimalSI)}, {"0.5e-9", dq(1, -9, DecimalExponent)},
	{"0.9n", dq(1, -9, DecimalSI)}, {"0.00000012345", dq(124, -9, DecimalSI)}, {"0.00000012354", dq(124, -9, DecimalSI)},
	{"9Ei", dq(math.MaxInt64, 0, BinarySI)}, {"9223372036854775807Ki", dq(math.MaxInt64, 0, BinarySI)},
	{"12E", dq(12, 18, DecimalSI)},
	{"100.035Ki", dq(10243584, -2, BinarySI)}, {"0.5Mi", dq(512*1024, 0, BinarySI)},
	{"0.05Gi", dq(536870912, -1, BinarySI)}, {"0.025Ti", dq(274877906944, -1, BinarySI)},
	{"0.000000000001Ki", dq(2, -9, DecimalSI)}, // rounds up, and below 1 is DecimalSI
	{".001", dq(1, -3, DecimalSI)}, {".0001k", dq(100, -3, DecimalSI)}, {"1.", dq(1, 0, DecimalSI)},
	{"1.G", dq(1, 9, DecimalSI)},
}

// TestExactQuantityParseLikeApimachinery: every input of the upstream parse
// table gives the upstream value and format, and so do its "-" and "+"
// spellings (negated, and the same); the upstream invalid inputs are
// refused.
func TestExactQuantityParseLikeApimachinery(t *testing.T) {
	for _, c := range upstreamParseCases {
		got, err := ParseExactQuantity(c.in)
		require.NoError(t, err, c.in)
		assert.Zero(t, c.want.Cmp(got), "%s: want %s, got %s", c.in, c.want, got)
		assert.Equal(t, c.want.Format, got.Format, c.in)

		neg, err := ParseExactQuantity("-" + c.in)
		require.NoError(t, err, "-"+c.in)
		wantNeg := ExactQuantity{nanos: new(big.Int).Neg(c.want.n()), Format: c.want.Format}
		assert.Zero(t, wantNeg.Cmp(neg), "-%s: got %s", c.in, neg)
		assert.Equal(t, c.want.Format, neg.Format, "-"+c.in)

		pos, err := ParseExactQuantity("+" + c.in)
		require.NoError(t, err, "+"+c.in)
		assert.Zero(t, c.want.Cmp(pos), "+%s: got %s", c.in, pos)
		assert.Equal(t, c.want.Format, pos.Format, "+"+c.in)
	}
	for _, bad := range []string{"", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "} {
		_, err := ParseExactQuantity(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// upstreamStringCases: TestQuantityString's table: a value and format, its
// canonical string, and another spelling that parses to the same canonical
// string. Left out: its three rows past E (10^21 and up), which print in
// e-notation only since a fix made after 1.34 (1.34 drops the exponent).
var upstreamStringCases = []struct {
	in        ExactQuantity
	want, alt string
}{
	{dq(1<<30, 0, BinarySI), "1Gi", "1024Mi"}, {dq(300<<20, 0, BinarySI), "300Mi", "307200Ki"},
	{dq(6*1024, 0, BinarySI), "6Ki", ""}, {dq(1001<<30, 0, BinarySI), "1001Gi", "1025024Mi"},
	{dq(1<<40, 0, BinarySI), "1Ti", "1024Gi"}, {dq(5, 0, BinarySI), "5", "5000m"},
	{dq(500, -3, BinarySI), "500m", "0.5"}, {dq(1, 9, DecimalSI), "1G", "1000M"},
	{dq(1000, 6, DecimalSI), "1G", "0.001T"}, {dq(1000000, 3, DecimalSI), "1G", ""},
	{dq(1000000000, 0, DecimalSI), "1G", ""}, {dq(1, -3, DecimalSI), "1m", "1000u"},
	{dq(80, -3, DecimalSI), "80m", ""}, {dq(1080, -3, DecimalSI), "1080m", "1.08"},
	{dq(108, -2, DecimalSI), "1080m", "1080000000n"}, {dq(10800, -4, DecimalSI), "1080m", ""},
	{dq(300, 6, DecimalSI), "300M", ""}, {dq(1, 12, DecimalSI), "1T", ""},
	{dq(1, 18, DecimalSI), "1E", ""}, {dq(1234567, 6, DecimalSI), "1234567M", ""},
	{dq(1234567, -3, BinarySI), "1234567m", ""}, {dq(3, 3, DecimalSI), "3k", ""},
	{dq(1025, 0, BinarySI), "1025", ""}, {dq(0, 0, DecimalSI), "0", ""},
	{dq(0, 0, BinarySI), "0", ""}, {dq(1, 9, DecimalExponent), "1e9", ".001e12"},
	{dq(1, -3, DecimalExponent), "1e-3", "0.001e0"}, {dq(1, -9, DecimalExponent), "1e-9", "1000e-12"},
	{dq(80, -3, DecimalExponent), "80e-3", ""}, {dq(300, 6, DecimalExponent), "300e6", ""},
	{dq(1, 12, DecimalExponent), "1e12", ""}, {dq(1, 3, DecimalExponent), "1e3", ""},
	{dq(3, 3, DecimalExponent), "3e3", ""}, {dq(3, 3, DecimalSI), "3k", ""},
	{dq(0, 0, DecimalExponent), "0", "00"}, {dq(1, -9, DecimalSI), "1n", ""},
	{dq(80, -9, DecimalSI), "80n", ""}, {dq(1080, -9, DecimalSI), "1080n", ""},
	{dq(108, -8, DecimalSI), "1080n", ""}, {dq(10800, -10, DecimalSI), "1080n", ""},
	{dq(1, -6, DecimalSI), "1u", ""}, {dq(80, -6, DecimalSI), "80u", ""},
	{dq(1080, -6, DecimalSI), "1080u", ""},
}

// TestExactQuantityStringLikeApimachinery: canonical strings (and their
// negations) as Quantity.String prints them; each canonical string and each
// alternate spelling parses back to that canonical string.
func TestExactQuantityStringLikeApimachinery(t *testing.T) {
	for _, c := range upstreamStringCases {
		assert.Equal(t, c.want, c.in.String())
		back, err := ParseExactQuantity(c.want)
		require.NoError(t, err, c.want)
		assert.Equal(t, c.want, back.String(), "re-parsed %s", c.want)
		if c.alt != "" {
			alt, err := ParseExactQuantity(c.alt)
			require.NoError(t, err, c.alt)
			assert.Equal(t, c.want, alt.String(), "alternate %s", c.alt)
		}
		if !c.in.IsZero() {
			neg := ExactQuantity{nanos: new(big.Int).Neg(c.in.n()), Format: c.in.Format}
			assert.Equal(t, "-"+c.want, neg.String())
		}
	}
}

// TestExactQuantityParseEmit: TestQuantityParseEmit's table, parse then
// print, for the value and its negation.
func TestExactQuantityParseEmit(t *testing.T) {
	cases := []struct{ in, want string }{
		{"1Ki", "1Ki"}, {"1Mi", "1Mi"}, {"1Gi", "1Gi"}, {"1024Mi", "1Gi"}, {"1000M", "1G"},
		{".001Ki", "1024m"}, {".000001Ki", "1024u"}, {".000000001Ki", "1024n"}, {".000000000001Ki", "2n"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, MustParseExactQuantity(c.in).String(), c.in)
		assert.Equal(t, "-"+c.want, MustParseExactQuantity("-"+c.in).String(), "-"+c.in)
	}
}

// TestExactQuantityCmpValueLikeApimachinery: TestQuantityCmp's table, and
// the constructor, Value, MilliValue and ScaledValue facts of TestNewSet,
// TestMilliNewSet, TestNewScaledSet and TestScaledValue.
func TestExactQuantityCmpValueLikeApimachinery(t *testing.T) {
	for _, c := range []struct {
		x, y string
		want int
	}{{"0", "0", 0}, {"100m", "50m", 1}, {"50m", "100m", -1}, {"10000T", "100Gi", 1}} {
		assert.Equal(t, c.want, MustParseExactQuantity(c.x).Cmp(MustParseExactQuantity(c.y)), "%s vs %s", c.x, c.y)
	}
	// NewQuantity(value, format).String(), and Value after a round trip
	for _, c := range []struct {
		v      int64
		format QuantityFormat
		want   string
	}{{1, DecimalSI, "1"}, {1000, DecimalSI, "1k"}, {1234000, DecimalSI, "1234k"}, {1024, BinarySI, "1Ki"},
		{1000000, "invalidFormatDefaultsToExponent", "1e6"}, {1024 * 1024, BinarySI, "1Mi"}} {
		q := dq(c.v, 0, c.format)
		assert.Equal(t, c.want, q.String())
		v, ok := MustParseExactQuantity(q.String()).Value()
		assert.True(t, ok)
		assert.Equal(t, c.v, v)
	}
	// NewMilliQuantity(value, format).String(), and MilliValue when exact
	for _, c := range []struct {
		v      int64
		format QuantityFormat
		want   string
		exact  bool
	}{{1, DecimalSI, "1m", true}, {1000, DecimalSI, "1", true}, {1234000, DecimalSI, "1234", true},
		{1024, BinarySI, "1024m", false}, {1000000, "invalidFormatDefaultsToExponent", "1e3", true},
		{1024 * 1024, BinarySI, "1048576m", false}} {
		q := dq(c.v, -3, c.format)
		assert.Equal(t, c.want, q.String())
		if c.exact {
			v, ok := MustParseExactQuantity(q.String()).MilliValue()
			assert.True(t, ok)
			assert.Equal(t, c.v, v)
		}
	}
	// NewScaledQuantity(value, scale).String(), and ScaledValue back
	for _, c := range []struct {
		v     int64
		scale int
		want  string
	}{{1, -9, "1n"}, {1000, -9, "1u"}, {1, -6, "1u"}, {1000, -6, "1m"}, {1, -3, "1m"}, {1000, -3, "1"},
		{1, 0, "1"}, {0, -9, "0"}, {0, -6, "0"}, {0, -3, "0"}, {0, 0, "0"}} {
		q := dq(c.v, c.scale, DecimalSI)
		assert.Equal(t, c.want, q.String())
		v, ok := MustParseExactQuantity(q.String()).ScaledValue(c.scale)
		assert.True(t, ok)
		assert.Equal(t, c.v, v)
	}
	// NewScaledQuantity(1, from).ScaledValue(to): rounded up
	for _, c := range []struct {
		from, to int
		want     int64
	}{{-9, -9, 1}, {-9, -6, 1}, {-9, -3, 1}, {-9, 0, 1}, {-6, -9, 1000}, {-6, -6, 1}, {-6, -3, 1}, {-6, 0, 1},
		{-3, -9, 1000 * 1000}, {-3, -6, 1000}, {-3, -3, 1}, {-3, 0, 1}, {0, -9, 1000 * 1000 * 1000},
		{0, -6, 1000 * 1000}, {0, -3, 1000}, {0, 0, 1}, {2, -2, 100 * 100}} {
		v, ok := dq(1, c.from, DecimalSI).ScaledValue(c.to)
		assert.True(t, ok)
		assert.Equal(t, c.want, v, "%d to %d", c.from, c.to)
	}
}

// TestExactQuantityBeyondInt64: the observable outputs for values an int64
// cannot hold. apimachinery keeps "12E" exactly and caps "9Ei" at 2^63-1
// (ParseQuantity caps BinarySI only); Value reports what fits.
func TestExactQuantityBeyondInt64(t *testing.T) {
	huge := MustParseExactQuantity("12E")
	assert.Equal(t, "12E", huge.String())
	_, ok := huge.Value()
	assert.False(t, ok, "12E does not fit an int64")
	capped := MustParseExactQuantity("9Ei")
	assert.Equal(t, "9223372036854775807", capped.String(), "capped, and 2^63-1 has no binary suffix")
	v, ok := capped.Value()
	assert.True(t, ok)
	assert.Equal(t, int64(math.MaxInt64), v)
	assert.Equal(t, 1, huge.Cmp(capped))
	one := MustParseExactQuantity("1E")
	v, ok = one.Value()
	assert.True(t, ok)
	assert.Equal(t, int64(1e18), v)
	_, ok = one.MilliValue()
	assert.False(t, ok, "1E in millis is 10^21")
	_, err := ParseQuantity(ResourceMemory, "12E")
	assert.ErrorContains(t, err, "out of the range kubesim supports")
	_, err = ParseExactQuantity("1e1001")
	assert.ErrorIs(t, err, ErrQuantityRange)
	assert.Equal(t, "1e-9", MustParseExactQuantity("1e-5000").String(), "rounded up to one nano")
}
