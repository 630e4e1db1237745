// Package clusterstate rebuilds a run's committed cluster state, final and
// historical, from the trace alone, so that an invariant over objects
// (their labels, annotations, spec and status, a custom kind's fields)
// can be judged without an auditor host that lists them from inside the
// world.
//
// Every etcd member traces each committed entry it applies
// (etcdtrace.Apply) with the key changes it made; an API object's change
// carries its stored bytes under "/registry/...". A History subscribes to
// the trace, keeps each object's changes (revision, virtual time, trace
// position and bytes) and decodes them only when read. A Snapshot is the
// state at one revision: the final one (History.Final), a given one
// (History.AtRevision) or the one in force at a virtual time
// (History.At). History.Versions lists every committed version of one
// object.
//
// The state is etcd's, as a quorum read through an API server would see
// it: objects carry their resourceVersion (the key's mod revision), and
// an object's history is what was committed, whether or not any client
// saw each version.
//
// Invariant turns a judge over a History into a checks.Check, so that a
// scenario's Build hook can return it beside kubesim's own checks. A
// History must see the trace from the start of a run (subscribe it, or
// the check, before the world runs); otherwise it holds only what came
// after.
package clusterstate
