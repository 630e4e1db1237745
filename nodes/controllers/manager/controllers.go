package manager

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/controllers/deployment"
	"github.com/kubesim/kubesim/nodes/controllers/endpointslice"
	"github.com/kubesim/kubesim/nodes/controllers/gc"
	"github.com/kubesim/kubesim/nodes/controllers/nodelifecycle"
	"github.com/kubesim/kubesim/nodes/controllers/podgc"
	"github.com/kubesim/kubesim/nodes/controllers/replicaset"
)

// newControllers makes the control loops a leader runs, in the order they
// are started.
func newControllers(ctx *controllers.Context, cfg Config) []controllers.Controller {
	cs := []controllers.Controller{
		replicaset.New(ctx, replicaset.Config{Ablations: cfg.Ablations}),
		deployment.New(ctx, deployment.Config{Ablations: cfg.Ablations}),
		nodelifecycle.New(ctx, nodelifecycle.Config{Ablations: cfg.Ablations}),
		gc.New(ctx, gc.Config{Ablations: cfg.Ablations}),
		endpointslice.New(ctx, endpointslice.Config{Ablations: cfg.Ablations, MaxEndpointsPerSlice: cfg.MaxEndpointsPerSlice}),
	}
	if !cfg.Ablations.Has(ablation.NoPodGC) {
		cs = append(cs, podgc.New(ctx, podgc.Config{TerminatedPodThreshold: cfg.TerminatedPodThreshold, Ablations: cfg.Ablations}))
	}
	return cs
}
