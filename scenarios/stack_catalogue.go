package scenarios

import (
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/sim"
)

// Timings of the full-stack scenarios.
const (
	// StackWarmup is when the faults may start: the operator declares the
	// workload at 5 s, and by 30 s every pod runs.
	StackWarmup = 30 * time.Second
	// StackSettle is the full-stack scenarios' settle window: a node back
	// from a crash re-registers and heartbeats (10 s), the node lifecycle
	// controller untaints it (5 s), reflectors that backed off during the
	// faults list again (up to a minute, see APISettle), a leader takeover
	// (up to ~20 s), controllers, scheduler and kubelets close the gap
	// (CrashLoopBackOff can add up to 5 min for a pod that crashed often:
	// the scenarios keep it below that).
	StackSettle = 150 * time.Second
)

// stackSpec makes a full-stack scenario.
func stackSpec(name, description string, duration, settle time.Duration, top StackTopology,
	faults func(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule,
	extra func(c *Cluster, faultEnd time.Duration) []checks.Check) Spec {
	return Spec{
		Name:        name,
		Description: description,
		Duration:    duration,
		Settle:      settle,
		Topology:    APIEtcdTopology,
		Members:     []int{3},
		Seeds:       50,
		Faults:      faults,
		Extend: func(c *Cluster, abl AblationSet, faultEnd, end time.Duration) ([]checks.Check, error) {
			if _, err := BuildStack(c, top, abl, end); err != nil {
				return nil, err
			}
			cs := StackChecks(c, faultEnd)
			if extra != nil {
				cs = append(cs, extra(c, faultEnd)...)
			}
			return cs, nil
		},
	}
}

// web is the plain ReplicaSet most full-stack scenarios run.
func web(replicas int32) *model.ReplicaSet { return newReplicaSet("web", replicas, AppSpec{}) }

// stackCatalogue returns the full-stack scenarios: etcd, API servers,
// schedulers, controller managers and kubelets, with a workload declared
// once by an operator.
func stackCatalogue() []Spec {
	nodeDeath := stackSpec("node-death",
		"a node running two of web's five replicas dies for good at 60 s, and its Node is deleted 20 s later (as a cloud provider does for a terminated machine): the pod garbage collector deletes its pods after its 40 s quarantine, the ReplicaSet controller creates two replacements, the scheduler binds them and kubelets start them",
		300*time.Second, 200*time.Second,
		StackTopology{Nodes: 4, Rogue: true, Script: func(l *StackLayer) []apiload.Step {
			return []apiload.Step{createStep(15*time.Second, web(5)), deleteDeadNodes(80*time.Second, l)}
		}},
		nil, func(c *Cluster, faultEnd time.Duration) []checks.Check {
			return []checks.Check{checks.NewSelfHealing()}
		})
	nodeDeath.Driver = func(c *Cluster, _ *sim.Stream, _ time.Duration) { killBusiestNode(c, 60*time.Second) }
	return []Spec{nodeDeath}
}

// deleteDeadNodes deletes the Node objects of the nodes a nemesis killed.
func deleteDeadNodes(at time.Duration, l *StackLayer) apiload.Step {
	return apiload.Step{At: at, Name: "delete-dead-nodes", Do: func(c *client.Client, done func(error)) {
		left := len(l.Dead)
		if left == 0 {
			done(nil)
			return
		}
		var firstErr error
		for _, n := range l.Dead {
			c.Nodes().Delete(n, client.DeleteOptions{}, func(_ model.Object, err error) {
				if err != nil && !client.IsNotFound(err) && firstErr == nil {
					firstErr = err
				}
				if left--; left == 0 {
					done(firstErr)
				}
			})
		}
	}}
}

// annotations is a shorthand for the simulated application's settings.
func annotations(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

var _ = kubelet.Boot
