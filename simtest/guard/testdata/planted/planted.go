// Package planted is a controller with a goroutine planted in it, which
// the determinism guard must find.
package planted

// Reconciler counts reconciles.
type Reconciler struct{ n int }

// Reconcile starts work on its own goroutine: forbidden on a simulation
// path.
func (r *Reconciler) Reconcile() {
	go func() { r.n++ }()
}

// Keys ranges over a map without a reason.
func Keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
