package ablation

import (
	"fmt"
	"slices"
	"strings"
)

// Ablation is the registry's entry for one switch: what it removes and
// what proves the removal matters. It is the "what if we didn't?" of a
// sentence in the design.
type Ablation struct {
	// Switch is the entry's switch.
	Switch Switch
	// Name is the switch's name on the command line (--ablate NAME).
	Name string
	// Layer is the lowest layer whose worlds run the mechanism: "etcd",
	// "api" (API servers and their clients) or "stack" (the nodes,
	// scheduler and controllers). A scenario of a lower layer never
	// reaches it, so a run there is refused rather than reported as a
	// pass that tested nothing.
	Layer string
	// Mechanism is what the switch removes.
	Mechanism string
	// Check is the check that catches the removal ("" when measured).
	Check string
	// Measure, for a switch that breaks no checked property, names the
	// metrics (comma-separated) that show its cost, side by side with a
	// run without it.
	Measure string
	// Scenario is the scenario TestAblations runs the switch on.
	Scenario string
	// AlsoCaughtBy names other checks that catch the removal in the run
	// where Check does: they are proven by this switch too.
	AlsoCaughtBy []string

	implies  []Switch // internal switches that naming this one turns on too
	internal bool     // no name turns it on alone (see declareInternal)
}

// registry holds every switch, internal ones too, indexed by Switch, in
// declaration order.
var registry []Ablation

// declare registers a switch that a name turns on, with the internal
// switches it implies, and returns it.
func declare(a Ablation, implies ...Switch) Switch {
	a.Switch = Switch(len(registry))
	a.implies = implies
	registry = append(registry, a)
	return a.Switch
}

// declareInternal registers a switch that no name turns on by itself:
// Go code (a unit test) turns it on with Of, and a user-facing switch
// through its implies.
func declareInternal(name string) Switch {
	x := declare(Ablation{Name: name})
	registry[x].internal = true
	return x
}

// All returns the entries of the switches a name turns on, in declaration
// (documentation) order.
func All() []Ablation {
	var all []Ablation
	for _, a := range registry {
		if !a.internal {
			all = append(all, a)
		}
	}
	return all
}

// Parse turns names into a Set: each named switch, with the internal
// switches its entry implies. An unknown name is an error that lists the
// known ones.
func Parse(names []string) (Set, error) {
	var on []Switch
	all := All()
	for _, n := range names {
		i := slices.IndexFunc(all, func(a Ablation) bool { return a.Name == n })
		if i < 0 {
			known := make([]string, len(all))
			for j, a := range all {
				known[j] = a.Name
			}
			return Set{}, fmt.Errorf("unknown ablation %q: run `kubesim ablations` to list them (%s)", n, strings.Join(known, ", "))
		}
		on = append(append(on, all[i].Switch), all[i].implies...)
	}
	return Of(on...), nil
}
