package checks

import "github.com/kubesim/kubesim/sim"

// Measurer is implemented by a check that also measures the run: besides
// its verdict it yields named numbers (e.g. "converge_s", "probe_restarts")
// that the scenario runner merges into the run's metrics, next to
// availability and latency, so that sweeps can aggregate and plot them.
//
// Measures is called after Finish and returns the same values every time.
// Names are snake_case and end in their unit where they have one ("_s" for
// seconds); they must not collide with another check's names in the same
// run. A value that could not be measured is reported as -1 rather than
// left out, so that a sweep can count the runs where it was missing.
type Measurer interface {
	Measures() map[string]float64
}

// MeasuresOf merges the measures of every check that is a Measurer, in the
// order given (a later check's value wins on a name collision).
func MeasuresOf(cs ...Check) map[string]float64 {
	out := map[string]float64{}
	for _, c := range cs {
		m, ok := c.(Measurer)
		if !ok {
			continue
		}
		vals := m.Measures()
		for _, k := range sim.SortedKeys(vals) {
			out[k] = vals[k]
		}
	}
	return out
}
