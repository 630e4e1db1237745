package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// sampleFault is a valid fault of kind k on hosts a and b, lasting a
// second where the kind can last.
func sampleFault(k sim.FaultKind) sim.Fault {
	f := sim.Fault{Kind: k, Targets: [][]string{{"a"}}, For: time.Second}
	switch k {
	case sim.FaultPartition, sim.FaultOneWay:
		f.Targets = [][]string{{"a"}, {"b"}}
	case sim.FaultHeal:
		f.Targets = nil
	case sim.FaultFlaky:
		f.Loss = 0.5
	case sim.FaultRestartProcess:
		f.For, f.Process = 0, "agent"
	case sim.FaultClockDrift:
		f.Rate = 1.05
	case sim.FaultClockJump:
		f.For, f.By = 0, -time.Second
	case sim.FaultSlowDisk:
		f.Fsync = 100 * time.Millisecond
	}
	return f
}

// TestFaultKindProperties: what each kind says of itself (crashes the
// host, cuts links, opens a window and which event closes it) is what
// injecting it does and what its trace events say.
func TestFaultKindProperties(t *testing.T) {
	for _, k := range sim.FaultKinds {
		t.Run(string(k), func(t *testing.T) {
			w := sim.NewWorld(1)
			boot := func(h *sim.Host) { h.OnProcessRestart("agent", func() {}) }
			a := w.MustAddHost(sim.HostSpec{Name: "a", Processes: []string{"agent"}, Boot: boot})
			b := w.MustAddHost(sim.HostSpec{Name: "b"})
			w.RunFor(0)
			if k == sim.FaultRestart {
				a.Crash()
			}
			var events []sim.FaultEvent
			var names []string
			w.Subscribe(func(e *sim.Event) {
				if e.Kind == sim.KindFault && e.Host == a.ID() {
					events = append(events, sim.ParseFaultEvent(e.Name))
					names = append(names, e.Name)
				}
			})
			f := sampleFault(k)
			require.NoError(t, f.Validate())
			w.Inject(f)
			assert.Equal(t, k.CrashesHost(), !a.Up(), "down after the fault")
			assert.Equal(t, k.CutsLinks(), !w.Network().Connected(a.ID(), b.ID()), "a->b cut")
			if k == sim.FaultHeal {
				assert.Empty(t, names, "a heal belongs to no host")
				return
			}
			require.NotEmpty(t, events)
			first := events[0]
			assert.Equal(t, string(k), names[0], "the first event is named after its kind")
			assert.Equal(t, k.StartsWindow(), first.Starts())
			if k.StartsWindow() {
				assert.Equal(t, k, first.Kind)
			}
			w.RunFor(2 * time.Second)
			if !k.StartsWindow() {
				assert.Empty(t, k.EndEvent())
				assert.Len(t, names, 1, "no window, nothing closes")
				return
			}
			require.Len(t, names, 2, "the window closed after For")
			assert.Equal(t, k.EndEvent(), names[1])
			end := events[1]
			assert.True(t, end.Ends)
			assert.False(t, end.Starts())
			assert.Equal(t, k.CrashesHost(), end.Kind.CrashesHost(), "a restart ends a crash")
			if !k.CrashesHost() {
				assert.Equal(t, k, end.Kind)
			}
		})
	}
}

func TestFaultKindNetworkHealedByHeal(t *testing.T) {
	for _, k := range sim.FaultKinds {
		assert.Equal(t, k == sim.FaultPartition || k == sim.FaultOneWay || k == sim.FaultIsolate || k == sim.FaultFlaky, k.Network(), k)
		assert.Equal(t, k == sim.FaultRestart || k == sim.FaultHeal, k.Heals(), k)
		assert.True(t, k.Known())
	}
	assert.False(t, sim.FaultKind("explode").Known())
	assert.Equal(t, sim.FaultEvent{Kind: sim.FaultCrash, Unresolved: true}, sim.ParseFaultEvent("crash-unresolved"))
	assert.False(t, sim.ParseFaultEvent("crash-unresolved").Starts())
}
