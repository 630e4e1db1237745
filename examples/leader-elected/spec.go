package leaderelected

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

// ServiceAccount is the controller's service account, in Namespace, and
// Replicas how many replicas run (hosts tenant-controller-1 to -3).
const (
	ServiceAccount = "tenant-controller"
	Replicas       = 3
)

// LeaderTarget is the fault target that names whichever replica leads
// when the fault fires (nobody, between leaders).
const LeaderTarget = "tenant-leader"

// Policy is the default RBAC policy plus the controller's grant, in
// Namespace only: read Tenants, update their status, and hold its Lease.
func Policy() *rbac.Policy {
	return rbac.Default().Allow(rbac.ServiceAccount(Namespace, ServiceAccount), Namespace,
		rbac.Rule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{Tenants.Group}, Resources: []string{Tenants.Plural}},
		rbac.Rule{Verbs: []string{"update"}, APIGroups: []string{Tenants.Group}, Resources: []string{Tenants.Plural + "/status"}},
		rbac.Rule{Verbs: []string{"get", "create", "update"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}})
}

// Spec is the example's scenario: kubesim's API layer serving Tenants
// under api-chaos's faults, plus faults aimed at the leading replica; the
// three replicas, and a user's script that creates Tenants and changes
// their quotas while the faults go on. It is judged by the API layer's
// checks, by leader-exclusivity for the controller's component and Lease,
// and by StatusCheck. broken runs the replicas with Config.Broken.
func Spec(name string, broken bool) scenarios.Spec {
	return scenarios.Spec{
		Name:        name,
		Description: "a leader-elected Tenant controller under API chaos and faults on its leader: one leader at a time, every Tenant's status current",
		API:         &scenarios.APITopology{Informers: 1, Custom: &Tenants, Policy: Policy()},
		// Five minutes, the last 135 s without faults (the API layer's
		// settle window): room for a few faults on the leader.
		Duration: 5 * time.Minute,
		Faults:   faults,
		Members:  []int{3},
		Build: func(c *scenarios.Cluster, env scenarios.Env) ([]checks.Check, error) {
			servers := c.HostIDs(c.API.Servers...)
			for i := 1; i <= Replicas; i++ {
				name := fmt.Sprintf("tenant-controller-%d", i)
				cfg := Config{Identity: name, User: rbac.ServiceAccountUser(Namespace, ServiceAccount), Servers: servers, Broken: broken}
				if _, err := c.World.AddHost(sim.HostSpec{Name: name, Role: scenarios.RoleAPIClient, Boot: Boot(cfg)}); err != nil {
					return nil, err
				}
				c.API.Clients = append(c.API.Clients, name)
			}
			if _, err := c.World.AddHost(sim.HostSpec{Name: "tenant-user", Role: scenarios.RoleAPIClient,
				Boot: apiload.BootScript(apiload.ScriptConfig{Servers: servers, Steps: script(env.FaultEnd)})}); err != nil {
				return nil, err
			}
			// LeaderTarget resolves, when a fault fires, to the replica
			// that leads then, as the leader-exclusivity check and the
			// replicas' Leading events see it.
			leaders := nemesis.NewSpokeLeaders(c.World)
			c.World.Subscribe(leaders.Observe)
			c.World.AddResolver(func(name string) ([]sim.HostID, bool) {
				if name != LeaderTarget {
					return nil, false
				}
				return c.HostIDs(leaders.Leader(Component)...), true
			})
			exclusive := checks.NewLeaderExclusivity(checks.LeaderExclusivityOptions{Components: []checks.LeaderComponent{
				{Component: Component, Lease: Namespace + "/" + LeaseName}}})
			return []checks.Check{exclusive, NewStatusCheck()}, nil
		},
	}
}

// faults are api-chaos's, drawn from the seed, plus the controller's own,
// every 20 to 40 s from 30 s on, each aimed at the replica that leads:
// cut off from the API servers for 15 to 30 s (it cannot renew, and must
// stop before another takes over), paused for 5 to 20 s, or crashed and
// restarted 10 s later.
func faults(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration) sim.Schedule {
	b := sim.NewScheduleBuilder()
	for at := 30 * time.Second; at < faultEnd-30*time.Second; at += time.Duration(20+rng.IntN(21)) * time.Second {
		switch rng.IntN(3) {
		case 0:
			b.Partition(at, []string{LeaderTarget}, []string{"apiservers"}).For(time.Duration(15+rng.IntN(16)) * time.Second)
		case 1:
			b.Pause(at, LeaderTarget).For(time.Duration(5+rng.IntN(16)) * time.Second)
		default:
			b.Crash(at, LeaderTarget).For(10 * time.Second)
		}
	}
	return nemesis.Merge(nemesis.APIChaosSchedule(c, rng, faultEnd), b.MustSchedule())
}

// script creates three Tenants at 10 s, then changes one's quota every
// 2 s until the faults end (a get, then an update of what was read; a 409
// fails the step, which the script retries: scenarios.SetCustomSpecStep).
func script(faultEnd time.Duration) []apiload.Step {
	names := []string{"acme", "globex", "initech"}
	var steps []apiload.Step
	for _, n := range names {
		// AlreadyExists counts as done: a retried create whose first
		// attempt went through.
		st := scenarios.CreateCustomStep(10*time.Second, Tenants, NewTenant(n, 1))
		st.Name = "create-" + n
		steps = append(steps, st)
	}
	for i, at := 0, 12*time.Second; at < faultEnd; i, at = i+1, at+2*time.Second {
		n := names[i%len(names)]
		steps = append(steps, scenarios.SetCustomSpecStep(at, fmt.Sprintf("quota-%s-%d", n, i), Tenants, Namespace, n, TenantSpec{Quota: int32(2 + i)}))
	}
	return steps
}
