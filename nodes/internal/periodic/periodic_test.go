package periodic

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// TestEvery: the first run one interval after the call, then one per
// interval, none at or after until.
func TestEvery(t *testing.T) {
	w := sim.NewWorld(1)
	var at []time.Duration
	w.MustAddHost(sim.HostSpec{Name: "job", Boot: func(h *sim.Host) {
		Every(h, "tick", 10*time.Second, 35*time.Second, func() { at = append(at, time.Duration(h.Now())) })
	}})
	w.RunFor(time.Minute)
	want := []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second}
	if len(at) != len(want) {
		t.Fatalf("ran at %v, want %v", at, want)
	}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("ran at %v, want %v", at, want)
		}
	}
}
