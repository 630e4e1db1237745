// Package apiload holds the workloads of the API scenarios: simulated
// processes that talk to API server replicas through nodes/client (with
// Tracing on), so that the checks can judge the API layer from the trace.
//
//   - BootCounter: a writer that increments a shared counter with
//     read-modify-write under RetryOnConflict (client.DefaultRetry), as
//     client-go's retry.RetryOnConflict is meant to be used. The counter is
//     a Lease (namespace "default", name "counter" by default) whose value
//     is the client.ValueAnnotation annotation, a decimal integer: a
//     writer reads it with a quorum get, writes value+1 with an update
//     conditional on the resourceVersion it read, and on 409 Conflict reads
//     again. The first writer to find the counter missing creates it with
//     value "0". The no-lost-updates check counts acknowledged increments.
//   - BootCRUD: a client for the API linearizability check: quorum gets
//     (resourceVersion ""), creates, updates conditional on the
//     resourceVersion it last read, and deletes (half of them conditional on
//     that resourceVersion) on a few Leases, each write carrying a unique
//     value ("<client>-<op>").
//   - BootInformers: one informer per resource (cache.NewInformer) whose
//     reflectors carry the run's ablations (reflector-no-resume and
//     reflector-relist-rv0 are theirs), emitting their stores
//     (apitrace.Store) at a given time; BootStateReporter does a quorum
//     list of each resource at that time and emits the truth
//     (apitrace.ServerState) they are compared with.
//   - BootRogue: a misbehaving client that keeps trying writes its identity
//     does not allow: a kubelet writing another node's Node and the status
//     of a pod not bound to it, and an unknown user creating pods. Every one
//     must be refused (403); the access check catches any that is admitted.
//   - BootScript: an operator that performs a script of steps (create,
//     scale, roll out, delete) in order, each at its time, retrying a failed
//     step until it succeeds, so that a step survives an API outage.
//   - BootClusterReporter: near the end of a run, quorum lists of pods,
//     nodes, ReplicaSets and Deployments, emitted as one
//     spoketrace.ClusterState for the convergence check.
//
// Every process stops starting work at its Until time (if set), so that a
// scenario can let the cluster go quiet before comparing stores.
package apiload
