// Package ablation is kubesim's switchboard of ablations (design principle
// 5): switches that each remove one mechanism the design depends on, so
// that the check depending on it must catch its absence.
//
// Every switch is declared once, in switches.go, with its name, the
// mechanism it removes, the check that catches it (or the metrics that
// measure it) and its scenario. A run's switches are a Set, which every
// layer receives unchanged (one Ablations field in its Config) and asks
// where the mechanism is:
//
//	if cfg.Ablations.Has(ablation.LocalReads) { ... }
//
// Adding an ablation is declaring its switch, that if, and its test.
//
// The package imports nothing of kubesim, so that any layer, the pure Raft
// core included, may import it.
package ablation

import "strings"

// Switch is one ablation switch: its position in the registry and in a
// Set. Unsigned and as wide as an int, so that the registry has no cap.
type Switch uint

// Set holds which switches are on. The zero Set has every switch off: the
// real system.
//
// It is a bitmap in a string: switch x is bit x%8 of byte x/8, and the
// last byte is never zero. A string, rather than a fixed-size word or
// array, because it holds any number of switches (the registry grows
// without a cap); rather than a slice, because a string is immutable and
// comparable: a Set is a plain value, copied without aliasing, and two
// Sets with the same switches on are == (and reflect.DeepEqual, which
// testify asserts with), so a Set may sit in a comparable Config or be a
// map key. Has reads one byte and allocates nothing; only building a Set
// (Of, When, Parse) allocates, once per run.
type Set struct {
	bits string
}

// Of returns the Set with exactly xs on; unlike Parse, it turns on no
// switch that an entry implies.
func Of(xs ...Switch) Set {
	var b []byte
	for _, x := range xs {
		for Switch(len(b)) <= x/8 {
			b = append(b, 0)
		}
		b[x/8] |= 1 << (x % 8)
	}
	return Set{bits: string(b)}
}

// When returns Of(xs...) when on, and the empty Set otherwise: for a test
// that runs with and without a switch.
func When(on bool, xs ...Switch) Set {
	if !on {
		return Set{}
	}
	return Of(xs...)
}

// Has reports whether x is on. It is asked on hot paths (Raft and the API
// server ask per event), hence one bounds check and one byte.
func (s Set) Has(x Switch) bool {
	return x/8 < Switch(len(s.bits)) && s.bits[x/8]&(1<<(x%8)) != 0
}

// String names the switches on, in registry (documentation) order,
// separated by commas, internal ones included: for messages and test
// failures ("" for the zero Set).
func (s Set) String() string {
	var names []string
	for _, a := range registry {
		if s.Has(a.Switch) {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, ",")
}

// String returns the switch's name.
func (x Switch) String() string { return registry[x].Name }
