// Package defaults holds the rules the nodes' Configs share: a timing,
// size or rate field that is zero, or below it, means the real default
// (Positive), and an empty name means the host's (HostName). A node's
// withDefaults applies them field by field, so that each rule is written
// once rather than as an if statement per field.
package defaults

import "github.com/kubesim/kubesim/sim"

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

// HostName returns name, or the name of h when name is empty: a
// component's or a client's name defaults to its host's. h is asked only
// then.
func HostName(name string, h *sim.Host) string {
	if name == "" {
		return h.Name()
	}
	return name
}
