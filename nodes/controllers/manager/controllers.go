package manager

import (
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/controllers/deployment"
	"github.com/kubesim/kubesim/nodes/controllers/gc"
	"github.com/kubesim/kubesim/nodes/controllers/nodelifecycle"
	"github.com/kubesim/kubesim/nodes/controllers/podgc"
	"github.com/kubesim/kubesim/nodes/controllers/replicaset"
)

// newControllers makes the control loops a leader runs, in the order they
// are started.
func newControllers(ctx *controllers.Context, cfg Config) []controllers.Controller {
	return []controllers.Controller{
		replicaset.New(ctx, replicaset.Config{Ablations: replicaset.Ablations{NoExpectations: cfg.Ablations.NoExpectations}}),
		deployment.New(ctx, deployment.Config{}),
		nodelifecycle.New(ctx, nodelifecycle.Config{}),
		gc.New(ctx, gc.Config{}),
		podgc.New(ctx, podgc.Config{}),
	}
}
