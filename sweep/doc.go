// Package sweep runs a grid of worlds: every combination of fault profile,
// member count and seed of one scenario, in parallel, one world per
// goroutine. Each finished run is appended at once as one JSON line (a
// scenarios.Result) to the results file, so a killed sweep resumes where it
// stopped; a grid can be split in shards across machines, each writing its
// own file; a failing run is also saved as a corpus entry.
//
// The grid is never listed: a run is computed from its position (Grid.At),
// a shard takes every n-th position, and a resume recognises a finished run
// by its key (scenarios.Result.Key: scenario, members, seed, duration,
// profile, schedule, ablations and build), so memory does not depend on the
// grid's size and no result is reused for a run it is not.
//
// It is the one place where worlds run in parallel (each world still runs
// on one goroutine), so it is not on a simulation path. Package reports
// reads what it writes.
package sweep
