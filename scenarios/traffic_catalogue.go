package scenarios

import (
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apptraffic"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// The traffic scenarios' application: web, four replicas behind the
// Service web, probed for readiness every 2 s, and its users outside the
// cluster sending 20 requests a second through node-1 from 40 s (once
// the pods serve) until 10 s before the end.
const (
	trafficRate  = 20
	trafficStart = 40 * time.Second
	trafficStop  = 10 * time.Second // before the end
)

// trafficApp is web's AppSpec with a preStop sleep of preStop seconds
// (none when negative).
func trafficApp(preStop int64) AppSpec {
	s := AppSpec{Readiness: &model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 2}}
	if preStop >= 0 {
		s.PreStopSleep = &preStop
	}
	return s
}

// trafficUsers are the application's users of a run of length d.
func trafficUsers(d time.Duration) []apptraffic.Config {
	return []apptraffic.Config{{Name: "users", Service: WorkloadNamespace + "/web", PortName: "http", Rate: trafficRate,
		Start: sim.Time(trafficStart), Stop: sim.Time(d - trafficStop)}}
}

// trafficChecks judge what the users saw: at least floor of their
// requests succeed, and none reaches an unready pod (the stack layer
// measures the traffic: StackLayer.Traffic).
func trafficChecks(floor float64) func(*Cluster, Env) ([]checks.Check, error) {
	return func(*Cluster, Env) ([]checks.Check, error) {
		return []checks.Check{checks.NewServiceAvailability(WorkloadNamespace+"/web", floor),
			checks.NewNoTrafficToUnready(checks.NoTrafficToUnreadyOptions{})}, nil
	}
}

// trafficCatalogue returns the scenarios of the Service rotation: what the
// application's users see while pods come and go and the control plane is
// in trouble.
func trafficCatalogue() []Spec {
	const d = 240 * time.Second
	rolling := func(name string, preStop int64, floor float64, desc string) Spec {
		return Spec{Name: name, Description: desc, Duration: d, Settle: 60 * time.Second,
			Stack: &StackTopology{Nodes: 3, Traffic: trafficUsers(d), Script: func(*StackLayer) []apiload.Step {
				return []apiload.Step{
					CreateStep(15*time.Second, NewDeployment("web", 4, trafficApp(preStop))),
					CreateStep(15*time.Second, NewService("web", 80)),
					RollDeployment(70*time.Second, WorkloadNamespace, "web", "registry.example/web:2"),
					RollDeployment(130*time.Second, WorkloadNamespace, "web", "registry.example/web:3"),
				}
			}},
			Build: trafficChecks(floor),
		}
	}
	return []Spec{
		rolling("rolling-update-traffic", 5, 1,
			"web's Deployment (4 replicas behind the Service web, a preStop sleep of 5 s) rolls out twice, at 70 s and 130 s, under 20 requests a second from outside through node-1: a terminating pod keeps serving through its preStop sleep while its endpoint leaves kube-proxy's rules (within the 1 s min sync), so no request fails"),
		rolling("rolling-update-traffic-no-prestop", -1, 0.95,
			"the same rollouts without a preStop hook: a terminating pod stops accepting at SIGTERM, at once, while kube-proxy still routes to it until its next sync, the well-known race; the failed requests are measured (requests_to_terminated), and at least 95% succeed"),
		{Name: "apiserver-down-traffic", Description: "every API server is down from 60 s to 180 s while web's users send 20 requests a second through node-1: kube-proxy keeps its last rules and the pods keep serving, so no request fails, while the operator's scale-up at 100 s waits for the API",
			Duration: d, Settle: 60 * time.Second,
			Stack: &StackTopology{Nodes: 3, Traffic: trafficUsers(d), Script: func(*StackLayer) []apiload.Step {
				return []apiload.Step{
					CreateStep(15*time.Second, NewDeployment("web", 3, trafficApp(5))),
					CreateStep(15*time.Second, NewService("web", 80)),
					ScaleDeployment(100*time.Second, WorkloadNamespace, "web", 4),
				}
			}},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return sim.Schedule{{At: 60 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"apiservers"}}, For: 120 * time.Second}}
			},
			Build: trafficChecks(1),
		},
	}
}
