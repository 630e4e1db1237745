// Package metrics measures a run from its trace: what the etcd KV
// workload's clients saw (availability, latency, recovery after a fault,
// leader elections), the fraction of the fault window a quorum was up,
// what the controller manager did, and what the users of the applications
// saw of their requests (Traffic). Checks judge a run; metrics only
// measure it, for the results, sweeps and reports, so a change that costs
// something without breaking a checked property still shows. Registry
// documents every metric a run reports.
//
// Its collectors are trace subscribers and run on the simulation path.
package metrics
