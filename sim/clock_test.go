package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

func clockHost(t *testing.T) (*sim.World, *sim.Host, *[]string) {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "a"})
	w.MustAddHost(sim.HostSpec{Name: "b"})
	var faults []string
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault {
			faults = append(faults, faultText(w, e))
		}
	})
	w.RunFor(0)
	return w, h, &faults
}

// faultText is a fault event as "<time> <host> <name> [<detail>]".
func faultText(w *sim.World, e *sim.Event) string {
	s := fmt.Sprintf("%v %s %s", e.At, w.HostName(e.Host), e.Name)
	if e.Data != nil {
		s += " " + string(e.Data.AppendText(nil))
	}
	return s
}

func drift(rate float64, d time.Duration) sim.Fault {
	return sim.Fault{Kind: sim.FaultClockDrift, Targets: [][]string{{"a"}}, Rate: rate, For: d}
}

// TestClockDriftStretchesTimers: a host whose clock runs 25% fast fires
// its timers early in virtual time, by the clock it measures with; timers
// armed before the drift move; the skew stays once the drift ends, and the
// clock runs true again.
func TestClockDriftStretchesTimers(t *testing.T) {
	w, h, faults := clockHost(t)
	var fired []sim.Time
	h.After(2*time.Second, "before", func() { fired = append(fired, w.Now()) })
	w.RunFor(time.Second)
	w.Inject(drift(1.25, 4*time.Second)) // 1s..5s virtual
	assert.Equal(t, w.Now(), h.Now(), "no skew yet")
	h.After(time.Second, "during", func() { fired = append(fired, w.Now()) })
	w.RunFor(2 * time.Second)
	assert.Equal(t, sim.Time(3500*time.Millisecond), h.Now(), "2s virtual are 2.5s local")
	w.RunFor(2 * time.Second) // the drift ended at 5s
	require.Len(t, fired, 2)
	assert.Equal(t, sim.Time(1800*time.Millisecond), fired[0], "the 1s left of 'before' took 0.8s")
	assert.Equal(t, sim.Time(1800*time.Millisecond), fired[1], "'during' took 0.8s")
	assert.Equal(t, time.Second, h.Now().Sub(w.Now()), "4s at 1.25 leave the clock 1s ahead")
	start := w.Now()
	h.After(time.Second, "after", func() { fired = append(fired, w.Now()) })
	w.RunFor(2 * time.Second)
	assert.Equal(t, start.Add(time.Second), fired[2], "the clock runs true again")
	assert.Equal(t, h.Now(), h.WallClock(), "a drift moves both clocks")
	assert.Equal(t, []string{
		"1.000000s a clock-drift rate=1.25",
		"5.000000s a clock-drift-healed",
	}, *faults)
}

// TestClockDriftSlowAndOverlapping: a slow clock fires late; two drifts in
// force multiply, and each ends on its own.
func TestClockDriftSlowAndOverlapping(t *testing.T) {
	w, h, _ := clockHost(t)
	w.Inject(drift(0.5, 10*time.Second))
	w.Inject(drift(0.8, 5*time.Second))
	at := sim.Time(-1)
	h.After(time.Second, "t", func() { at = w.Now() })
	w.RunFor(time.Minute)
	assert.Equal(t, sim.Time(2500*time.Millisecond), at, "1s local at 0.4")
	// 5s at 0.4 and 5s at 0.5 make 4.5s local in 10s virtual.
	assert.Equal(t, sim.Time(time.Minute-5500*time.Millisecond), h.Now())
}

// TestClockDriftSurvivesCrash: the clock is the machine's, not the
// process's: a crash does not reset the skew, and a drift goes on over it.
func TestClockDriftSurvivesCrash(t *testing.T) {
	w, h, _ := clockHost(t)
	w.Inject(drift(2, 2*time.Second))
	w.RunFor(time.Second)
	h.Crash()
	w.RunFor(2 * time.Second)
	h.Restart()
	assert.Equal(t, 2*time.Second, h.Now().Sub(w.Now()))
}

// TestClockJumpStepsTheWallClockOnly: a jump steps the wall clock (what
// timestamps read), forward or back; the monotonic clock, elapsed time and
// armed timers go on as if nothing happened.
func TestClockJumpStepsTheWallClockOnly(t *testing.T) {
	w, h, faults := clockHost(t)
	at := sim.Time(-1)
	h.After(3*time.Second, "t", func() { at = w.Now() })
	w.RunFor(time.Second)
	w.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{{"a"}}, By: -10 * time.Second})
	assert.Equal(t, sim.Time(-9*time.Second), h.WallClock())
	assert.Equal(t, w.Now(), h.Now())
	w.RunFor(3 * time.Second)
	assert.Equal(t, sim.Time(3*time.Second), at, "a timer is not moved by a step")
	w.Inject(sim.Fault{Kind: sim.FaultClockJump, Targets: [][]string{{"a", "b"}}, By: 15 * time.Second})
	assert.Equal(t, w.Now().Add(5*time.Second), h.WallClock())
	b, _ := w.HostByName("b")
	assert.Equal(t, w.Now().Add(15*time.Second), b.WallClock())
	assert.Equal(t, []string{
		"1.000000s a clock-jump by=-10s",
		"4.000000s a clock-jump by=15s",
		"4.000000s b clock-jump by=15s",
	}, *faults)
}

// TestClockDriftKeepsTimerOrder: timers due at one instant fire in the
// order they were armed after a drift moves them.
func TestClockDriftKeepsTimerOrder(t *testing.T) {
	w, h, _ := clockHost(t)
	var order []string
	for _, name := range []string{"x", "y", "z"} {
		h.After(time.Second, name, func() { order = append(order, name) })
	}
	w.Inject(drift(3, 0))
	w.RunFor(time.Second)
	assert.Equal(t, []string{"x", "y", "z"}, order)
}

// TestSlowDiskStretchesFsync: while a slow-disk is in force every fsync
// takes its latency, and syncs still complete in order; afterwards the
// disk is fast again.
func TestSlowDiskStretchesFsync(t *testing.T) {
	w, h, faults := clockHost(t)
	sync := func() (took func() time.Duration) {
		start, end := w.Now(), sim.Time(-1)
		h.Disk().Append("wal", []byte("x"))
		h.Disk().Sync(func() { end = w.Now() })
		return func() time.Duration { return end.Sub(start) }
	}
	fast := sync()
	w.RunFor(time.Second)
	assert.Less(t, fast(), 3*time.Millisecond)
	w.Inject(sim.Fault{Kind: sim.FaultSlowDisk, Targets: [][]string{{"a"}}, Fsync: 500 * time.Millisecond, For: 2 * time.Second})
	slow := sync()
	w.RunFor(100 * time.Millisecond)
	queued := sync()
	w.RunFor(time.Second)
	took := slow()
	assert.GreaterOrEqual(t, took, 500*time.Millisecond)
	assert.Less(t, took, 503*time.Millisecond)
	assert.GreaterOrEqual(t, queued(), took-100*time.Millisecond, "a later sync completes after an earlier one")
	w.RunFor(2 * time.Second) // healed at 3s
	again := sync()
	w.RunFor(time.Second)
	assert.Less(t, again(), 3*time.Millisecond)
	assert.Equal(t, []string{
		"1.000000s a slow-disk fsync=500ms",
		"3.000000s a slow-disk-healed",
	}, *faults)
}
