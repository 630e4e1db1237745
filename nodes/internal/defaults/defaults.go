// Package defaults holds the one rule the nodes' Configs share for their
// timing, size and rate fields: zero, or a value below it, means the real
// default. A node's withDefaults applies it field by field, so that the
// rule is written once rather than as an if statement per field.
package defaults

// Number is the kinds of field Positive defaults: durations, counts and
// rates.
type Number interface {
	~int | ~int32 | ~int64 | ~uint64 | ~float64
}

// Positive sets *v to def when *v is zero or negative (for an unsigned
// field, when it is zero), and leaves a positive value alone.
func Positive[T Number](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}
