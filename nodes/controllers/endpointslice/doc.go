// Package endpointslice is kube-controller-manager's EndpointSlice
// controller: it lists, for each Service with a selector, the pods behind
// it in EndpointSlices, as pkg/controller/endpointslice does with the
// reconciler of staging/src/k8s.io/endpointslice.
//
// Handlers on the shared Service, Pod and EndpointSlice informers queue
// Service keys: a Service's every event; a pod's add and delete, for the
// Services whose selector matches it, and its update when its readiness,
// IP, deletion or labels changed (GetServicesToUpdateOnPodChange), after
// --endpoint-updates-batch-period (0 by default: at once); a managed
// slice's event the controller did not cause, 1 s later. Five workers
// (--concurrent-service-endpoint-syncs) take keys from a workqueue whose
// rate limiter backs off per Service from 1 s to 1000 s (and 10 qps
// overall); a Service that fails 15 times in a row is dropped until its
// next event. A sync:
//
//   - forgets a deleted Service (the garbage collector deletes its slices,
//     which name it as their controller) and skips one without a selector;
//   - lists the matching pods and the Service's slices (labels
//     kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by)
//     from the informers, dropping slices being deleted, and fails, to be
//     retried, when the slice informer has not yet seen the controller's
//     own last writes (the EndpointSliceTracker's generations);
//   - computes the desired endpoints: one per pod with an IP that is not
//     terminal (Succeeded or Failed) and whose node the informer knows,
//     pods being deleted included, with conditions serving (the pod is
//     Ready), terminating (it has a deletionTimestamp) and ready (serving
//     and not terminating), its address, node and pod reference; grouped
//     by their ports (a Service port whose targetPort is a name is left
//     out: kubesim's containers declare no ports);
//   - places them as the reconciler does: endpoints that are still wanted
//     stay in their slice (updated if their conditions changed), unwanted
//     ones leave it (a slice left empty is deleted), the slices being
//     updated are filled first, then the unchanged slice the rest fits
//     best, then new slices of at most 100 endpoints
//     (--max-endpoints-per-slice), created with generateName "<service>-",
//     the Service as controller and the Service's labels; a create turns
//     into an update of a slice that would be deleted; a Service without
//     endpoints keeps one empty placeholder slice; a Service being deleted
//     gets no new slices;
//   - writes creates, then updates (with the resourceVersion read, so a
//     conflict fails the sync), then deletes, stopping at the first error.
//
// Where upstream ranges over a map or pops from a set, kubesim goes by
// slice name and pod order. The endpoints.kubernetes.io/last-change-
// trigger-time annotation, topology hints and zones, hostnames, dual
// stack and the Endpoints mirroring are not modelled.
//
// Two ablations remove what endpoints-converge judges:
// ablation.EndpointSliceIgnoresReadiness (endpointslice-ignores-readiness)
// marks every endpoint ready, whatever its pod's readiness, so kube-proxy
// would route to pods that are not ready; and
// ablation.EndpointSliceDropsTerminating (endpointslice-drops-terminating)
// leaves out the pods being deleted, so kube-proxy has no serving
// terminating endpoint to fall back on.
package endpointslice
