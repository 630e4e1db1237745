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

// Switch is one ablation switch: its position in a Set.
type Switch uint8

// Set holds which switches are on. The zero Set has every switch off: the
// real system.
type Set uint64

// Of returns the Set with exactly xs on; unlike Parse, it turns on no
// switch that an entry implies.
func Of(xs ...Switch) Set {
	var s Set
	for _, x := range xs {
		s |= 1 << x
	}
	return s
}

// When returns Of(xs...) when on, and the empty Set otherwise: for a test
// that runs with and without a switch.
func When(on bool, xs ...Switch) Set {
	if !on {
		return 0
	}
	return Of(xs...)
}

// Has reports whether x is on.
func (s Set) Has(x Switch) bool { return s&(1<<x) != 0 }

// String returns the switch's name.
func (x Switch) String() string { return registry[x].Name }
