package scenarios

import (
	"strconv"

	"github.com/kubesim/kubesim/sim"
)

// Buggify is what a run with BUGGIFY on (Options.Buggify) switched on:
// the points active in it, drawn from the seed (sim.EnableBuggify), and
// how often each fired. A replay with the same seed and --buggify
// switches on the same points and fires them at the same moments.
type Buggify struct {
	Active []string `json:"active"`
	// Fired counts the firings of each active point, in Active's order.
	Fired []int `json:"fired"`
}

// String prints b as a run's output shows it: "etcd-apply-lag 12,
// raft-slow-peer 3" (each active point and how often it fired), or
// "no point active".
func (b *Buggify) String() string {
	if len(b.Active) == 0 {
		return "no point active"
	}
	out := ""
	for i, p := range b.Active {
		if i > 0 {
			out += ", "
		}
		out += p + " " + strconv.Itoa(b.Fired[i])
	}
	return out
}

// buggifyOf is what the run switched on, nil unless BUGGIFY is on.
func buggifyOf(w *sim.World) *Buggify {
	if !w.BuggifyOn() {
		return nil
	}
	b := &Buggify{Active: []string{}, Fired: []int{}}
	for _, p := range w.BuggifyActive() {
		b.Active = append(b.Active, string(p))
		b.Fired = append(b.Fired, w.BuggifyFired(p))
	}
	return b
}
