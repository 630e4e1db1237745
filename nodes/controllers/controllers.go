// Package controllers holds what the control loops of a controller manager
// share: the Context (one host, one client, shared informers) and the
// Controller interface. The loops live in subpackages (replicaset,
// deployment, nodelifecycle, gc), and the manager that runs them under
// leader election in controllers/manager, as in kube-controller-manager.
package controllers

import (
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
)

// Context is what a controller manager gives each controller it starts:
// its host, its API client (identity system:kube-controller-manager) and
// the shared informers, as client-go's SharedInformerFactory. Controllers
// add their event handlers before the manager runs the informers; they
// must never modify an object from an informer's store (copy it first).
type Context struct {
	Host   *sim.Host
	Client *client.Client
	// Shared informers, all namespaces: pods, nodes, replicasets,
	// deployments, and the node Leases of kube-node-lease.
	Pods, Nodes, ReplicaSets, Deployments, NodeLeases *cache.Informer
}

// Controller is one control loop. Run registers its handlers and starts its
// workers; Stop ends it for good: every callback that fires after Stop
// (a timer, an RPC continuation, an informer event) does nothing. A
// manager that loses its leadership stops its controllers and starts new
// ones when it leads again.
type Controller interface {
	Run()
	Stop()
}
