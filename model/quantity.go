package model

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// QuantityFormat is the suffix family a quantity was written in, as
// apimachinery's resource.Format: a quantity is printed again in the family
// it was parsed from.
type QuantityFormat string

// The three families of apimachinery's pkg/api/resource/quantity.go.
const (
	// DecimalSI is "", n, u, m, k, M, G, T, P, E ("12M" is 12*10^6).
	DecimalSI QuantityFormat = "DecimalSI"
	// BinarySI is Ki, Mi, Gi, Ti, Pi, Ei ("12Mi" is 12*2^20).
	BinarySI QuantityFormat = "BinarySI"
	// DecimalExponent is e<n> or E<n> ("12e6").
	DecimalExponent QuantityFormat = "DecimalExponent"
)

// The errors ParseExactQuantity returns, with apimachinery's messages
// (resource.ErrFormatWrong, ErrNumeric, ErrSuffix), plus one for an exponent
// kubesim will not expand.
var (
	ErrQuantityFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrQuantityNumeric = errors.New("unable to parse numeric part of quantity")
	ErrQuantitySuffix  = errors.New("unable to parse quantity's suffix")
	ErrQuantityRange   = errors.New("quantity exponent is out of the range kubesim supports (|e| <= 1000)")
)

// maxQuantityExponent bounds a DecimalExponent suffix: apimachinery would
// build 10^n for any int32 n; kubesim refuses n above it rather than
// allocate a number of that many digits.
const maxQuantityExponent = 1000

// nanosPerUnit is 10^9: an ExactQuantity counts nano-units, the finest
// precision a parsed quantity keeps (ParseQuantity rounds up to resource.Nano).
var nanosPerUnit = big.NewInt(1_000_000_000)

// ExactQuantity is an amount as apimachinery's resource.Quantity holds it:
// an exact decimal (here a whole number of nano-units, which is every value
// ParseQuantity can produce) and the format it was written in. It backs
// ParseQuantity and FormatQuantity and answers String, Value, MilliValue
// and Cmp as resource.Quantity does. The zero value is 0 with no format
// (printed "0").
type ExactQuantity struct {
	nanos  *big.Int // nil means 0; never mutated once set
	Format QuantityFormat
}

// NewExactQuantity returns unscaled*10^exponent in format, as apimachinery's
// NewScaledQuantity (or, for exponent -3, NewMilliQuantity); a value finer
// than a nano-unit is rounded away from zero, as ParseQuantity rounds.
func NewExactQuantity(unscaled int64, exponent int, format QuantityFormat) ExactQuantity {
	n := big.NewInt(unscaled)
	neg := n.Sign() < 0
	n.Abs(n)
	n = scaleNanos(n, exponent+9)
	if neg {
		n.Neg(n)
	}
	return ExactQuantity{nanos: n, Format: format}
}

// scaleNanos returns n*10^p for p >= 0, else n/10^-p rounded up (n >= 0).
func scaleNanos(n *big.Int, p int) *big.Int {
	if n.Sign() == 0 {
		return n
	}
	if p >= 0 {
		return n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil))
	}
	if -p > len(n.String())+1 { // n < 10^-p: the result is a fraction of one nano
		return n.SetInt64(1)
	}
	q, r := new(big.Int).QuoRem(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-p)), nil), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// ParseExactQuantity parses s as apimachinery's resource.ParseQuantity
// (pkg/api/resource/quantity.go, parseQuantityString and
// suffixer.interpret): an optional sign, digits with an optional fraction
// (either part may be empty: ".5", "1.", even "" before a suffix parses, as
// 0), then a suffix: a DecimalSI or BinarySI one, or e/E and a signed
// exponent. The value is rounded away from zero to a whole nano; a BinarySI
// value beyond 2^63-1 is capped there (a decimal one is kept exactly, as
// "12E" is); a BinarySI value strictly between 0 and 1 becomes DecimalSI.
// No surrounding space is allowed (the JSON decoder trims it first).
func ParseExactQuantity(s string) (ExactQuantity, error) {
	if s == "" {
		return ExactQuantity{}, ErrQuantityFormat
	}
	i, neg := 0, false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	whole, frac := s[start:i], ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	suffix := s[i:]
	j := 0
	for j < len(suffix) && strings.IndexByte("eEinumkKMGTP", suffix[j]) >= 0 {
		j++
	}
	if j < len(suffix) && (suffix[j] == '-' || suffix[j] == '+') {
		j++
	}
	for j < len(suffix) && isDigit(suffix[j]) {
		j++
	}
	if j != len(suffix) {
		return ExactQuantity{}, ErrQuantityFormat
	}
	base2, exp, format, err := interpretSuffix(suffix)
	if err != nil {
		return ExactQuantity{}, err
	}
	n, ok := new(big.Int).SetString("0"+whole+frac, 10)
	if !ok {
		return ExactQuantity{}, ErrQuantityNumeric
	}
	if base2 {
		n.Lsh(n, uint(exp))
		n = scaleNanos(n, 9-len(frac))
		if capNanos := new(big.Int).Mul(big.NewInt(math.MaxInt64), nanosPerUnit); n.Cmp(capNanos) > 0 {
			n = capNanos
		}
		if n.Sign() > 0 && n.Cmp(nanosPerUnit) < 0 {
			format = DecimalSI
		}
	} else {
		n = scaleNanos(n, exp+9-len(frac))
	}
	if neg {
		n.Neg(n)
	}
	return ExactQuantity{nanos: n, Format: format}, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var decimalSuffixExp = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// decimalSuffixes are the DecimalSI suffixes for exponents -9, -6, ..., 18;
// binarySuffixes the BinarySI ones for 2^0, 2^10, ..., 2^60.
var (
	decimalSuffixes = []string{"n", "u", "m", "", "k", "M", "G", "T", "P", "E"}
	binarySuffixes  = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)

var binarySuffixExp = map[string]int{"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

// interpretSuffix is apimachinery's suffixHandler.interpret: a DecimalSI
// suffix, then a BinarySI one, then e/E and an exponent.
func interpretSuffix(s string) (base2 bool, exp int, format QuantityFormat, err error) {
	if e, ok := decimalSuffixExp[s]; ok {
		return false, e, DecimalSI, nil
	}
	if e, ok := binarySuffixExp[s]; ok {
		return true, e, BinarySI, nil
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		e, perr := strconv.ParseInt(s[1:], 10, 64)
		if perr != nil {
			return false, 0, "", ErrQuantitySuffix
		}
		if e > maxQuantityExponent {
			return false, 0, "", ErrQuantityRange
		}
		if e < -maxQuantityExponent {
			e = -maxQuantityExponent // any nonzero value still rounds up to 1n
		}
		return false, int(e), DecimalExponent, nil
	}
	return false, 0, "", ErrQuantitySuffix
}

// MustParseExactQuantity is ParseExactQuantity that panics on a malformed
// string, for tests and literals (resource.MustParse).
func MustParseExactQuantity(s string) ExactQuantity {
	q, err := ParseExactQuantity(s)
	if err != nil {
		panic(err)
	}
	return q
}

func (q ExactQuantity) n() *big.Int {
	if q.nanos == nil {
		return new(big.Int)
	}
	return q.nanos
}

// Sign is -1, 0 or 1, as Quantity.Sign.
func (q ExactQuantity) Sign() int { return q.n().Sign() }

// IsZero reports whether q is 0, as Quantity.IsZero.
func (q ExactQuantity) IsZero() bool { return q.Sign() == 0 }

// Cmp compares the values of q and o (formats do not count), as
// Quantity.Cmp: -1, 0 or 1.
func (q ExactQuantity) Cmp(o ExactQuantity) int { return q.n().Cmp(o.n()) }

// ScaledValue is q/10^scale rounded away from zero, as Quantity.ScaledValue
// on its int64 representation (int64Amount.AsScaledInt64); ok is false
// when that does not fit in an int64, where apimachinery silently returns
// a wrapped or zero value.
func (q ExactQuantity) ScaledValue(scale int) (v int64, ok bool) {
	n := new(big.Int).Abs(q.n())
	n = scaleNanos(n, -9-scale)
	if q.Sign() < 0 {
		n.Neg(n)
	}
	if !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}

// Value is q rounded up (away from zero) to an integer, as Quantity.Value.
func (q ExactQuantity) Value() (int64, bool) { return q.ScaledValue(0) }

// MilliValue is q*1000 rounded up (away from zero), as Quantity.MilliValue.
func (q ExactQuantity) MilliValue() (int64, bool) { return q.ScaledValue(-3) }

// String prints q in canonical form, as Quantity.String and
// CanonicalizeBytes (pkg/api/resource/quantity.go, amount.go): 0 is "0";
// otherwise the format it was written in, with the largest suffix that
// keeps the number whole. BinarySI falls back to DecimalSI for a value
// between -1024 and 1024 or one that is not whole; an unknown format prints
// as DecimalExponent. Decimal forms use an exponent that is a multiple of 3
// ("1500m", "1G", "80e-3"). As in 1.34, a DecimalSI exponent past E (10^18)
// has no suffix and is dropped (fixed upstream after 1.34).
func (q ExactQuantity) String() string {
	n := q.n()
	if n.Sign() == 0 {
		return "0"
	}
	format := q.Format
	switch format {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		whole := new(big.Int).Rem(n, nanosPerUnit).Sign() == 0
		lim := new(big.Int).Mul(big.NewInt(1024), nanosPerUnit)
		if new(big.Int).Abs(n).Cmp(lim) < 0 || !whole {
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}
	if format == BinarySI {
		v, e := divideOut(new(big.Int).Quo(n, nanosPerUnit), big.NewInt(1024))
		if e >= len(binarySuffixes) { // past Ei: no suffix, as suffixer.constructBytes
			return v.String()
		}
		return v.String() + binarySuffixes[e]
	}
	// Decimal: move factors of ten into the exponent, then lower the
	// exponent to a multiple of three.
	ten := big.NewInt(10)
	m, e := divideOut(new(big.Int).Set(n), ten)
	e -= 9
	for e%3 != 0 {
		m.Mul(m, ten)
		e--
	}
	if format == DecimalExponent {
		if e == 0 {
			return m.String()
		}
		return m.String() + "e" + strconv.Itoa(e)
	}
	if i := e/3 + 3; i >= 0 && i < len(decimalSuffixes) {
		return m.String() + decimalSuffixes[i]
	}
	return m.String()
}

// divideOut divides v, which is not zero, by base for as long as base
// divides it exactly: it returns the quotient and how many times it
// divided.
func divideOut(v, base *big.Int) (*big.Int, int) {
	e := 0
	for {
		q, r := new(big.Int).QuoRem(v, base, new(big.Int))
		if r.Sign() != 0 {
			return v, e
		}
		v, e = q, e+1
	}
}
