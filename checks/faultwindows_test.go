package checks

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// fw is a fault event for FaultWindows: name on host at ms.
type fw struct {
	ms   int64
	host sim.HostID
	name string
}

// TestFaultWindows feeds fault events and asks, after the last one,
// whether a window is open, when the last one closed, and which hosts are
// crashed or paused.
func TestFaultWindows(t *testing.T) {
	for _, tc := range []struct {
		name      string
		evs       []fw
		active    bool
		quiet     int64 // ms (a crash closes its host's pause, if any, first); -1: no fault seen
		crashed   []sim.HostID
		paused    []sim.HostID
		unhealed  int // the loose count
		lastEvent int64
	}{
		{name: "none", quiet: -1, lastEvent: -1},
		{name: "crash open", evs: []fw{{1000, 2, "crash"}}, active: true, quiet: 1000, crashed: []sim.HostID{2}, unhealed: 1, lastEvent: 1000},
		{name: "crash then restart", evs: []fw{{1000, 2, "crash"}, {4000, 2, "restart"}}, quiet: 4000, lastEvent: 4000},
		{name: "torn and wipe are crashes", evs: []fw{{1000, 1, "torn"}, {1500, 2, "wipe"}, {2000, 1, "restart"}},
			active: true, quiet: 1000, crashed: []sim.HostID{2}, unhealed: 1, lastEvent: 2000},
		{name: "restart on another host ends nothing", evs: []fw{{1000, 2, "crash"}, {2000, 3, "restart"}},
			active: true, quiet: 1000, crashed: []sim.HostID{2}, lastEvent: 2000},
		{name: "pause until resume", evs: []fw{{1000, 2, "pause"}}, active: true, paused: []sim.HostID{2}, unhealed: 1, lastEvent: 1000},
		{name: "resume", evs: []fw{{1000, 2, "pause"}, {3000, 2, "resume"}}, quiet: 3000, lastEvent: 3000},
		{name: "a crash ends a pause", evs: []fw{{1000, 2, "pause"}, {2000, 2, "crash"}, {5000, 2, "restart"}},
			quiet: 5000, unhealed: 1, lastEvent: 5000},
		{name: "heal ends the cuts", evs: []fw{{1000, 1, "partition"}, {1000, 2, "partition"}, {1500, 3, "flaky"}, {2000, sim.NoHost, "heal"}},
			quiet: 2000, lastEvent: 2000},
		{name: "heal leaves a crash", evs: []fw{{1000, 1, "isolate"}, {1200, 2, "crash"}, {2000, sim.NoHost, "heal"}},
			active: true, crashed: []sim.HostID{2}, lastEvent: 2000},
		{name: "a cut until healed", evs: []fw{{1000, 1, "oneway"}, {1000, 2, "oneway"}, {3000, 1, "oneway-healed"}},
			active: true, unhealed: 1, lastEvent: 3000},
		{name: "drift and slow disk", evs: []fw{{1000, 1, "clock-drift"}, {1000, 1, "slow-disk"}, {3000, 1, "clock-drift-healed"}, {4000, 1, "slow-disk-healed"}},
			quiet: 4000, lastEvent: 4000},
		{name: "an instant fault ends at once", evs: []fw{{1000, 1, "clock-jump"}}, quiet: 1000, lastEvent: 1000},
		{name: "a process restart is no fault", evs: []fw{{1000, 1, "restart-process"}}, quiet: -1, lastEvent: 1000},
		{name: "an unresolved fault is nothing", evs: []fw{{1000, sim.NoHost, "crash-unresolved"}, {1000, sim.NoHost, "pause-invalid"}}, quiet: -1, lastEvent: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f FaultWindows
			for i, e := range tc.evs {
				f.Observe(&sim.Event{Seq: uint64(i), At: sim.Time(e.ms) * sim.Time(1e6), Kind: sim.KindFault, Host: e.host, Name: e.name})
			}
			require.Equal(t, tc.active, f.Active(), "active")
			quiet, ok := f.QuietSince()
			if tc.quiet < 0 {
				require.False(t, ok, "no fault seen")
			} else {
				require.True(t, ok, "a fault seen")
				require.Equal(t, sim.Time(tc.quiet)*sim.Time(1e6), quiet, "quiet since")
			}
			for h := sim.HostID(1); h <= 3; h++ {
				require.Equal(t, slices.Contains(tc.crashed, h), f.Crashed(h), "host %d crashed", h)
				require.Equal(t, slices.Contains(tc.paused, h), f.Paused(h), "host %d paused", h)
				require.Equal(t, slices.Contains(tc.crashed, h) || slices.Contains(tc.paused, h), f.Down(h), "host %d down", h)
			}
			require.Equal(t, tc.unhealed, f.unhealed, "loose count")
			end := sim.Time(tc.lastEvent) * sim.Time(1e6)
			require.Equal(t, tc.unhealed > 0 || tc.lastEvent >= 0, f.looselyNear(end, time.Second), "loosely near its last event")
			require.Equal(t, tc.unhealed > 0, f.looselyNear(end.Add(time.Second), time.Second), "loosely near a fault a recovery after its last event")
		})
	}
}

// TestFaultWindowsIgnoresOtherEvents: only fault events count.
func TestFaultWindowsIgnoresOtherEvents(t *testing.T) {
	var f FaultWindows
	f.Observe(&sim.Event{At: 1, Kind: sim.KindNode, Host: 1, Name: "crash"})
	require.False(t, f.Active())
	require.False(t, f.Crashed(1))
	_, ok := f.QuietSince()
	require.False(t, ok)
}
