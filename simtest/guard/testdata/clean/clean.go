// Package clean is a controller the determinism guard accepts: no
// goroutines or wall clock, and its one map range says why its order
// cannot matter.
package clean

import "github.com/kubesim/kubesim/sim"

// Reconciler counts reconciles.
type Reconciler struct{ n int }

// Reconcile does its work in the caller's event.
func (r *Reconciler) Reconcile() { r.n++ }

// Sum adds the values: the order cannot change a sum.
func Sum(m map[string]int) int {
	n := 0
	// determinism: addition is commutative.
	for _, v := range m {
		n += v
	}
	return n
}

// Keys returns the keys sorted, as the guard asks a map's keys to be
// iterated: sim.SortedKeys.
func Keys(m map[string]int) []string { return sim.SortedKeys(m) }
