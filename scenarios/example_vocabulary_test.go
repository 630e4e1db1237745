package scenarios_test

import (
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/scenarios"
)

// Example_stackVocabulary is docs/library.md's full-stack spec with a
// custom kind, compiled here so that the page's code stays right.
func Example_stackVocabulary() {
	var gadgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1",
		Kind: "Gadget", Plural: "gadgets", Namespaced: true}

	spec := scenarios.Spec{Name: "my-gadgets", Duration: 3 * time.Minute, Settle: time.Minute,
		Stack: &scenarios.StackTopology{Nodes: 3, Custom: []model.CustomResourceDefinition{gadgets},
			Script: func(*scenarios.StackLayer) []apiload.Step {
				ns := scenarios.WorkloadNamespace
				return []apiload.Step{
					scenarios.CreateCustomStep(5*time.Second, gadgets, model.NewCustomObject(gadgets, ns, "g")),
					// your controller, booted in Build, makes g's Deployment "g"
					scenarios.WaitForList(5*time.Second, "g-runs", model.ResourcePodsName, ns, "app=g",
						func(pods []model.Object) bool { return len(pods) == 3 }),
					scenarios.DeleteStep(60*time.Second, "gadgets", ns, "g"),
				}
			}},
		Build: func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
			// boot the controller on a host of c.World, with c.Stack.ServerIDs
			return nil, nil
		},
	}
	_ = spec
}
