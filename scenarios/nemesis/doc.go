// Package nemesis draws and drives a scenario's faults. It holds the fault
// generators (random chaos for each layer, the parameterised profiles of
// sweeps, and small helpers such as Every and Split), the reactive drivers
// that watch the trace and inject faults as it happens (the Raft paper's
// Figure 8, the death of the busiest node), and the trackers that read the
// trace to tell them, and the fault targets, who leads and what runs where.
//
// It sees a built world only through Cluster, a small view that package
// scenarios fills in, so that the generators can be read, tested and
// reused apart from the scenarios that run them. Everything here runs on a
// simulation path: every random choice comes from the stream it is given.
package nemesis
