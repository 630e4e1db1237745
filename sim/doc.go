// Package sim is kubesim's deterministic discrete-event kernel.
//
// One World owns a virtual clock, an event queue ordered by (time, sequence),
// seeded random streams, hosts with disks, a lossy network fabric, an RPC
// helper, fault schedules and the trace. Everything runs on the caller's
// goroutine: the same seed and the same build give a byte-identical trace,
// whatever GOMAXPROCS is. Parallelism exists only across independent worlds.
//
// Simulated processes are actors. They react to a delivered Message or a fired
// Timer and never block; an RPC is a message plus a continuation with a
// deadline (see RPC).
package sim
