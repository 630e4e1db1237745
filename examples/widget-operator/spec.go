package widgetoperator

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// ServiceAccount is the controller's service account, in Namespace.
const ServiceAccount = "widget-operator"

// Policy is the default RBAC policy plus the controller's grant: read
// Widgets, and read, create and update Deployments, in Namespace only.
// Without it every request of the controller is a traced 403 and its
// informers never sync.
func Policy() *rbac.Policy {
	return rbac.Default().Allow(rbac.ServiceAccount(Namespace, ServiceAccount), Namespace,
		rbac.Rule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{Widgets.Group}, Resources: []string{Widgets.Plural}},
		rbac.Rule{Verbs: []string{"get", "list", "watch", "create", "update"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}})
}

// Spec is the example's scenario: kubesim's API layer (etcd, three API
// servers serving Widgets, an informer host) under api-chaos's faults;
// the controller on its own host "widget-operator", a user's script that
// creates three Widgets and scales them while the faults go on. It is
// judged by the API layer's checks and NewReplicasCheck.
// broken runs the controller with Config.Broken.
func Spec(name string, broken bool) scenarios.Spec {
	return scenarios.Spec{
		Name:        name,
		Description: "a Widget operator under API chaos: every Widget ends with a Deployment of its replicas",
		API: &scenarios.APITopology{Informers: 1, Custom: &Widgets, Policy: Policy(),
			CompactionInterval: 20 * time.Second},
		Faults:  faults,
		Members: []int{3},
		Build: func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
			servers := c.HostIDs(c.API.Servers...)
			hosts := []sim.HostSpec{
				{Name: "widget-operator", Role: scenarios.RoleAPIClient, Boot: Boot(Config{
					User: rbac.ServiceAccountUser(Namespace, ServiceAccount), Servers: servers, Timeout: 500 * time.Millisecond, Broken: broken})},
				{Name: "widget-user", Role: scenarios.RoleAPIClient, Boot: apiload.BootScript(apiload.ScriptConfig{
					Servers: servers, Steps: script(env.FaultEnd)})},
			}
			for _, hs := range hosts {
				if _, err := c.World.AddHost(hs); err != nil {
					return nil, err
				}
			}
			// The controller is an API client like the layer's own: the
			// "api-clients" faults (cut off, flaky links) hit it too.
			c.API.Clients = append(c.API.Clients, "widget-operator")
			return []checks.Check{NewReplicasCheck()}, nil
		},
	}
}

// faults are api-chaos's, drawn from the seed, plus one of the operator's
// own: its link to everyone turns lossy for the last 10 s of the faults,
// while the user still scales Widgets, so that some of its writes go
// unanswered and must be retried.
func faults(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration) sim.Schedule {
	own := sim.NewScheduleBuilder().Flaky(faultEnd-10*time.Second, "widget-operator").Loss(0.3).For(10 * time.Second).MustSchedule()
	return nemesis.Merge(nemesis.APIChaosSchedule(c, rng, faultEnd), own)
}

// script creates three Widgets at 10 s, then scales one of them every
// 3 s until the faults end.
func script(faultEnd time.Duration) []apiload.Step {
	names := []string{"alpha", "beta", "gamma"}
	var steps []apiload.Step
	for _, n := range names {
		// AlreadyExists counts as done: a retried create whose first
		// attempt went through.
		st := scenarios.CreateCustomStep(10*time.Second, Widgets, NewWidget(n, 1))
		st.Name = "create-" + n
		steps = append(steps, st)
	}
	for i, at := 0, 15*time.Second; at < faultEnd; i, at = i+1, at+time.Second {
		// A get, then an update of what was read (a 409 fails the step,
		// which the script retries).
		n := names[i%len(names)]
		steps = append(steps, scenarios.SetCustomSpecStep(at, fmt.Sprintf("scale-%s-%d", n, i), Widgets, Namespace, n, WidgetSpec{Replicas: int32(2 + i%5)}))
	}
	return steps
}
