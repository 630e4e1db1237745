// Package model holds kubesim's Kubernetes objects: metadata, Pod, Node,
// ReplicaSet, Deployment and Lease, and CustomObject for the custom kinds a
// CustomResourceDefinition registers in a Registry, with the machinery an API server and its
// clients need around them: validation with Kubernetes-style field errors,
// defaulting, label selectors, owner references, taints and tolerations,
// resource arithmetic and a deterministic encoding for storage in the
// simulated etcd.
//
// Types, field names and JSON names follow k8s.io/api and
// k8s.io/apimachinery, reduced to the fields the simulator uses, so that
// anyone who knows client-go recognises them. Semantics (selector matching,
// validation messages, defaults, percent rounding) follow Kubernetes; where
// kubesim departs from it, the doc comment says so.
//
// The package imports nothing from the rest of kubesim. Timestamps are
// virtual: a Time is nanoseconds since the simulated world began (the same
// scale as sim.Time, so model.Time(w.Now()) converts).
//
// Everything here is deterministic: no map iteration order reaches behaviour
// or output (encoding sorts map keys, validation visits labels in key order).
package model
