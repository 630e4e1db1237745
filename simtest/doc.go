// Package simtest runs a user's own scenario (a scenarios.Spec: an
// operator's controller on kubesim's control plane, under faults, judged by
// checks of its own) as a Go test, the way kubesim tests its own:
//
//	func TestMyOperator(t *testing.T) {
//		simtest.Run(t, mySpec, simtest.Seeds(20))
//	}
//
// Run runs the spec over a range of seeds and member counts, runs one seed
// twice to check that the same seed gives the same trace, and on a failure
// writes the trace, the timeline and porcupine's visualizations and prints
// the command that replays the failing world:
//
//	go test example.com/myop -run '^TestMyOperator$' -seed 17 -members 3
//
// # Flags
//
// A test binary that imports simtest gets four flags, read by every Run in
// it:
//
//	-seed N     run seed N only (what a replay command sets)
//	-members M  run with M etcd members only
//	-seeds N    run N seeds (from 1) instead of the test's number
//	-ablate A   also turn on ablation A (repeatable)
//
// They are defined on the standard flag set when simtest initialises, and
// only in a test binary (testing.Testing). A flag of the same name that a
// package initialised earlier already defined is read instead of defined
// again; a package of the test's own that defines one of them after simtest
// panics with "flag redefined": drop it and use simtest's.
//
// # Determinism
//
// A world is deterministic only if all the code on its simulation path is:
// no goroutines, channels, wall clock, global randomness or map ranges
// whose order reaches behaviour. CheckDeterminism reads a user's packages
// for these (the rules of package guard, which kubesim applies to itself),
// and Run's same-seed-twice check catches what reading the source cannot.
//
// # Invariants
//
// A user's check reads the trace alone. EveryCustomObject is the common
// one: at the end of the run, every object of the user's custom kind must
// be as a function of it (and of the final state) says, and there must be
// some.
//
// # Faults
//
// A fault is a trace event: checks read only the trace, so a host crashed
// with sim.Host.Crash, which traces nothing, is a crash no check knows
// of, and nothing restarts it. Crash, Pause and Restart inject a host's
// fault through sim.World.Inject, so that it is traced and undone like any
// scheduled one; sim.ScheduleBuilder writes a whole schedule.
package simtest
