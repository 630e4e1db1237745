package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// TestSetCustomSpecStep: a user's script creates a Widget, then sets its
// spec; the Widget stored at the end has the spec set.
func TestSetCustomSpecStep(t *testing.T) {
	type widgetSpec struct {
		Replicas int `json:"replicas"`
	}
	ns := scenarios.WorkloadNamespace
	spec := scenarios.Spec{Name: "set-custom-spec", Duration: time.Minute, Settle: 20 * time.Second, Members: []int{3},
		API: &scenarios.APITopology{Informers: 1, Custom: &customWidgets},
		Build: func(c *scenarios.Cluster, _ scenarios.Env) ([]checks.Check, error) {
			steps := []apiload.Step{
				scenarios.CreateCustomStep(5*time.Second, customWidgets, model.NewCustomObject(customWidgets, ns, "a")),
				scenarios.SetCustomSpecStep(6*time.Second, "set-a", customWidgets, ns, "a", widgetSpec{Replicas: 3}),
			}
			_, err := c.World.AddHost(sim.HostSpec{Name: "user", Role: scenarios.RoleAPIClient,
				Boot: apiload.BootScript(apiload.ScriptConfig{Servers: c.HostIDs(c.API.Servers...), Steps: steps})})
			set := clusterstate.Invariant("spec-set", func(h *clusterstate.History, r *checks.Recorder) {
				s := h.Final()
				obj, ok := s.Get(customWidgets.Plural, ns, "a")
				if !ok {
					r.Add(s.Event(), "no Widget a")
					return
				}
				got, err := model.SpecAs[widgetSpec](obj.(*model.CustomObject))
				if err != nil || got.Replicas != 3 {
					r.Add(s.Event(), "Widget a has spec %+v (%v), want 3 replicas", got, err)
				}
			})
			return []checks.Check{set}, err
		}}
	p, err := scenarios.PrepareSpec(spec, scenarios.Options{Scenario: spec.Name, Members: 3, Seed: 1})
	require.NoError(t, err)
	res, err := p.Run()
	require.NoError(t, err)
	require.True(t, res.OK, "%v", res.Failed())
}
