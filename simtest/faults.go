package simtest

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Crash crashes the host named host now, as a traced fault (sim.FaultCrash
// through World.Inject): the trace and the checks see it, and after down
// the host restarts, traced too (0: it stays down until Restart). Call it
// from a Spec's Build, a Driver or a callback the world runs (World.At,
// World.After); sim.Host.Crash traces nothing. It returns an error if the
// world has no such host (Inject would only trace that it skipped it).
func Crash(w *sim.World, host string, down time.Duration) error {
	return inject(w, sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{host}}, For: down})
}

// Pause freezes the host named host now, as a traced fault (sim.FaultPause):
// its timers and deliveries wait, and after d it resumes, traced (0: it
// stays frozen to the end of the run).
func Pause(w *sim.World, host string, d time.Duration) error {
	return inject(w, sim.Fault{Kind: sim.FaultPause, Targets: [][]string{{host}}, For: d})
}

// Restart restarts the crashed host named host now, as a traced fault
// (sim.FaultRestart); a host that is up is left alone, as the fault does.
func Restart(w *sim.World, host string) error {
	return inject(w, sim.Fault{Kind: sim.FaultRestart, Targets: [][]string{{host}}})
}

// inject performs f now, after checking that its targets name hosts of w.
func inject(w *sim.World, f sim.Fault) error {
	f.At = time.Duration(w.Now())
	if err := f.Validate(); err != nil {
		return fmt.Errorf("simtest: %s of %s: %v", f.Kind, f.Targets[0][0], err)
	}
	if err := w.CheckTargets(sim.Schedule{f}); err != nil {
		return fmt.Errorf("simtest: %v", err)
	}
	w.Inject(f)
	return nil
}
