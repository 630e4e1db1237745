// Package controllers holds what the control loops of a controller manager
// share: the Context (one host, one client, shared informers) and the
// Controller interface. The loops live in subpackages (replicaset,
// deployment, nodelifecycle, gc, podgc, endpointslice), and the manager that runs them under
// leader election in controllers/manager, as in kube-controller-manager.
package controllers

import (
	"github.com/kubesim/kubesim/model"
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
	// Services and EndpointSlices are the shared informers (all
	// namespaces) of the EndpointSlice controller and the garbage
	// collector.
	Services, EndpointSlices *cache.Informer
	// Custom are the shared informers of the cluster's custom kinds (all
	// namespaces), in registration order (AddCustomInformers): the
	// garbage collector watches them, as the real one watches every
	// resource discovery lists, custom resources included.
	Custom []CustomInformer
	// adjust is NewContext's reflector adjustment, for AddCustomInformers.
	adjust func(*cache.ReflectorConfig)
}

// CustomInformer is the shared informer of one custom kind.
type CustomInformer struct {
	// Resource is the kind's descriptor (Resource.Custom is set).
	Resource model.Resource
	Informer *cache.Informer
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

// NewContext makes a Context on h for client c, with one shared informer
// (all namespaces) per resource, and the node Leases' informer on
// kube-node-lease. adjust, when not nil, changes each informer's reflector
// configuration first (a manager's poll-not-watch ablation). Run the
// informers (Informers) after the controllers have added their handlers.
func NewContext(h *sim.Host, c *client.Client, adjust func(*cache.ReflectorConfig)) *Context {
	inf := func(resource, namespace string) *cache.Informer {
		rc := cache.ReflectorConfig{Resource: resource, Namespace: namespace}
		if adjust != nil {
			adjust(&rc)
		}
		return cache.NewInformer(c, cache.InformerConfig{ReflectorConfig: rc})
	}
	return &Context{Host: h, Client: c, adjust: adjust,
		Pods:        inf(model.ResourcePodsName, ""),
		Nodes:       inf(model.ResourceNodesName, ""),
		ReplicaSets: inf(model.ResourceReplicaSetsName, ""),
		Deployments: inf(model.ResourceDeploymentsName, ""),
		NodeLeases:  inf(model.ResourceLeasesName, model.NodeLeaseNamespace),
		Services:    inf(model.ResourceServicesName, ""), EndpointSlices: inf(model.ResourceEndpointSlicesName, "")}
}

// AddCustomInformers adds a shared informer (all namespaces, adjusted as
// NewContext's) for each custom kind of reg, in its order; the built-in
// kinds already have theirs. Call it before the controllers are made.
func (ctx *Context) AddCustomInformers(reg *model.Registry) {
	for _, res := range reg.Resources() {
		if res.Custom == nil {
			continue
		}
		rc := cache.ReflectorConfig{Resource: res.Name}
		if ctx.adjust != nil {
			ctx.adjust(&rc)
		}
		ctx.Custom = append(ctx.Custom, CustomInformer{Resource: res, Informer: cache.NewInformer(ctx.Client, cache.InformerConfig{ReflectorConfig: rc})})
	}
}

// CustomForKind returns the custom kind's informer whose kind and
// apiVersion an owner reference names.
func (ctx *Context) CustomForKind(apiVersion, kind string) (CustomInformer, bool) {
	for _, ci := range ctx.Custom {
		if ci.Resource.Kind == kind && ci.Resource.APIVersion() == apiVersion {
			return ci, true
		}
	}
	return CustomInformer{}, false
}

// Informers returns the context's informers, in a fixed order: the
// built-in kinds', then the custom kinds'.
func (ctx *Context) Informers() []*cache.Informer {
	out := []*cache.Informer{ctx.Pods, ctx.Nodes, ctx.ReplicaSets, ctx.Deployments, ctx.NodeLeases, ctx.Services, ctx.EndpointSlices}
	for _, ci := range ctx.Custom {
		out = append(out, ci.Informer)
	}
	return out
}

// RunInformers starts every informer of the context.
func (ctx *Context) RunInformers() {
	for _, i := range ctx.Informers() {
		i.Run()
	}
}
