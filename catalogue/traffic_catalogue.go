package catalogue

import (
	"strings"
	"time"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apptraffic"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/scenarios"
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
func trafficApp(preStop int64) scenarios.AppSpec {
	s := scenarios.AppSpec{Readiness: &model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 2}}
	if preStop >= 0 {
		s.PreStopSleep = &preStop
	}
	return s
}

// trafficUsers are the application's users of a run of length d.
func trafficUsers(d time.Duration) []apptraffic.Config {
	return []apptraffic.Config{{Name: "users", Service: scenarios.WorkloadNamespace + "/web", PortName: "http", Rate: trafficRate,
		Start: sim.Time(trafficStart), Stop: sim.Time(d - trafficStop)}}
}

// trafficChecks judge what the users saw: at least floor of their
// requests succeed, and none reaches an unready pod (the stack layer
// measures the traffic: StackLayer.Traffic).
func trafficChecks(floor float64) func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
	return func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
		return []checks.Check{checks.NewServiceAvailability(checks.ServiceFloor{Service: scenarios.WorkloadNamespace + "/web", Floor: floor}),
			checks.NewNoTrafficToUnready(checks.NoTrafficToUnreadyOptions{})}, nil
	}
}

// trafficCatalogue returns the scenarios of the Service rotation: what the
// application's users see while pods come and go and the control plane is
// in trouble.
func trafficCatalogue() []scenarios.Spec {
	const d = 240 * time.Second
	rolling := func(name string, preStop int64, floor float64, desc string, hunt ...scenarios.BugHuntRun) scenarios.Spec {
		return scenarios.Spec{Name: name, Description: desc, Duration: d, Settle: 60 * time.Second, BugHunt: hunt,
			Stack: &scenarios.StackTopology{Nodes: 3, Traffic: trafficUsers(d), Script: func(*scenarios.StackLayer) []apiload.Step {
				return []apiload.Step{
					scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("web", 4, trafficApp(preStop))),
					scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
					scenarios.RollDeployment(70*time.Second, scenarios.WorkloadNamespace, "web", "registry.example/web:2"),
					scenarios.RollDeployment(130*time.Second, scenarios.WorkloadNamespace, "web", "registry.example/web:3"),
					scenarios.ScaleDeployment(175*time.Second, scenarios.WorkloadNamespace, "web", 3),
					scenarios.QuarantinePod(200*time.Second, scenarios.WorkloadNamespace, "web"),
				}
			}},
			Build: trafficChecks(floor),
		}
	}
	nodeDeath := scenarios.Spec{Name: "node-death-traffic", Description: "the node running the most of web's 4 pods (behind the Service web, under 20 requests a second from outside through node-1, which is spared) dies for good at 70 s, and its Node is deleted 20 s later: its pods stay ready in the API, and in every node's rules, until the node lifecycle controller marks the node unreachable after the 50 s node monitor grace period and its pods not ready, or the pod garbage collector deletes them, so requests routed to them time out meanwhile (the window is measured: request_success); the rest are served, and the ReplicaSet replaces the lost pods",
		Duration: d, Settle: 90 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 4, Traffic: trafficUsers(d), Script: func(l *scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{
				scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("web", 4, trafficApp(5))),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
				deleteDeadNodes(90*time.Second, l),
			}
		}},
		Driver: func(c *nemesis.Cluster, _ *sim.Stream, _ time.Duration) { nemesis.KillBusiestNode(c, 70*time.Second) },
		// The floor from the real periods: the dead pods stay in the rules
		// for at most the 20 s until their Node is deleted, pod GC's 40 s
		// quarantine of orphans and its 20 s period, a few seconds more
		// for the writes: about 85 s of the 190 s of traffic, for at most
		// half the pods (two of four on the busiest node).
		Build: trafficChecks(0.75),
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 57, Members: 5, Seed: 1, Reaches: "a node dies under traffic: timeouts to its pods until pod GC, slices updated, replacements routed"},
		},
	}
	// Both apps are busy from 60 s to 120 s: every answer, to a probe or a
	// user, takes 3 s, past the probes' and the users' 1 s timeouts.
	busy := annotations(kubelet.AnnotationLoad, "60s-120s=3s")
	tight := scenarios.AppSpec{Annotations: busy, Liveness: &model.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 3}}
	ready := scenarios.AppSpec{Annotations: busy, Liveness: &model.Probe{PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3},
		Readiness: &model.Probe{PeriodSeconds: 5, TimeoutSeconds: 1, FailureThreshold: 2}}
	users := func(app string) apptraffic.Config {
		return apptraffic.Config{Name: "users-" + app, Service: scenarios.WorkloadNamespace + "/" + app, PortName: "http", Rate: trafficRate,
			Start: sim.Time(trafficStart), Stop: sim.Time(d - trafficStop)}
	}
	readiness := scenarios.Spec{Name: "readiness-vs-liveness", Description: "the liveness-versus-readiness practice problem end to end: two Deployments of an application that is busy (3 s per answer, but healthy) from 60 s to 120 s, each behind its Service and its users (20 requests a second each, through node-1); tight probes liveness with a 1 s timeout, so its kubelets kill the busy containers into CrashLoopBackOff and its users keep failing after the load is gone; ready probes readiness with that timeout (and liveness with a sane one), so its pods leave the rotation while busy (their users are refused at once rather than kept waiting) and come back as soon as the load is gone; request success and restarts are measured side by side",
		Duration: d, Settle: 60 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 3, Traffic: []apptraffic.Config{users("tight"), users("ready")}, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{
				scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("tight", 3, tight)),
				scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("ready", 3, ready)),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("tight", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("ready", 80)),
			}
		}, ProbeExempt: func(pod string) bool { return strings.HasPrefix(pod, scenarios.WorkloadNamespace+"/tight-") }},
		// The floors from the periods: of the 190 s of traffic, ready
		// loses the 60 s busy window and the few seconds its probes take
		// to put pods back (0.65); tight loses the window and then up to
		// its CrashLoopBackOff delay (40 s after four kills) and a start
		// (0.45).
		Build: func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
			return []checks.Check{checks.NewServiceAvailability(
				checks.ServiceFloor{Service: scenarios.WorkloadNamespace + "/ready", Floor: 0.65},
				checks.ServiceFloor{Service: scenarios.WorkloadNamespace + "/tight", Floor: 0.45}),
				checks.NewNoTrafficToUnready(checks.NoTrafficToUnreadyOptions{})}, nil
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 58, Members: 3, Seed: 1, Reaches: "busy pods out of rotation and back, CrashLoopBackOff under traffic, the no-endpoints rejection"},
		},
	}
	return []scenarios.Spec{
		readiness,
		proxyRulesTraffic(),
		nodeDeath,
		rolling("rolling-update-traffic", 5, 1,
			"web's Deployment (4 replicas behind the Service web, a preStop sleep of 5 s) rolls out twice, at 70 s and 130 s, is scaled down to 3 at 175 s, and has one pod quarantined for debugging at 200 s (relabelled out of its app: its ReplicaSet releases and replaces it, its endpoint leaves the Service, the pod keeps running), under 20 requests a second from outside through node-1: a terminating pod keeps serving through its preStop sleep while its endpoint leaves kube-proxy's rules (within the 1 s min sync), so no request fails",
			scenarios.BugHuntRun{Rank: 55, Members: 3, Seed: 1, Reaches: "rollouts under users' traffic: EndpointSlice conditions, kube-proxy's ready routing and min sync, preStop before SIGTERM (this seed catches kube-proxy-ignores-readiness and kubelet-no-prestop)"}),
		rolling("rolling-update-traffic-no-prestop", -1, 0.95,
			"the same rollouts, scale-down and quarantine without a preStop hook: a terminating pod stops accepting at SIGTERM, at once, while kube-proxy still routes to it until its next sync, the well-known race; the failed requests are measured (requests_to_terminated), and at least 95% succeed"),
		{Name: "apiserver-down-traffic", Description: "every API server is down from 60 s to 180 s while web's users send 20 requests a second through node-1: kube-proxy keeps its last rules and the pods keep serving, so no request fails, while the operator's scale-up at 100 s waits for the API",
			Duration: d, Settle: 60 * time.Second,
			Stack: &scenarios.StackTopology{Nodes: 3, Traffic: trafficUsers(d), Script: func(*scenarios.StackLayer) []apiload.Step {
				return []apiload.Step{
					scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("web", 3, trafficApp(5))),
					scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
					scenarios.ScaleDeployment(100*time.Second, scenarios.WorkloadNamespace, "web", 4),
				}
			}},
			Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
				return sim.Schedule{{At: 60 * time.Second, Kind: sim.FaultCrash, Targets: [][]string{{"apiservers"}}, For: 120 * time.Second}}
			},
			Build: trafficChecks(1),
			BugHunt: []scenarios.BugHuntRun{
				{Rank: 56, Members: 3, Seed: 1, Reaches: "the API servers down under traffic: kube-proxy keeps its rules (this seed catches kube-proxy-flush-on-disconnect)"},
			},
		},
	}
}

// proxyRulesTraffic is the scenario of kube-proxy's rules: Services of
// every shape kube-proxy treats differently, changed and emptied under
// traffic, judged by proxy-rules-converge at every quiet point.
func proxyRulesTraffic() scenarios.Spec {
	const d = 150 * time.Second
	web := scenarios.NewService("web", 80)
	web.Spec.Ports = []model.ServicePort{
		{Name: "http", Port: 80, Protocol: model.ProtocolTCP, TargetPort: model.FromInt(8080)},
		{Name: "dns", Port: 53, Protocol: model.ProtocolUDP, TargetPort: model.FromInt(5353)}}
	local := scenarios.NewService("web-local", 80)
	local.Spec.Selector = web.Spec.Selector
	local.Spec.InternalTrafficPolicy = model.ServiceTrafficPolicyLocal
	legacy := scenarios.NewService("web-legacy", 80)
	legacy.Spec.Selector = web.Spec.Selector
	legacy.Labels = map[string]string{model.LabelServiceProxyName: "another-proxy"}
	headless := scenarios.NewService("web-peers", 80)
	headless.Spec.Selector = web.Spec.Selector
	headless.Spec.ClusterIP = model.ClusterIPNone
	users := func(svc, port string, stop time.Duration) apptraffic.Config {
		return apptraffic.Config{Name: "users-" + svc + "-" + port, Service: scenarios.WorkloadNamespace + "/" + svc, PortName: port,
			Rate: 10, Start: sim.Time(25 * time.Second), Stop: sim.Time(stop)}
	}
	// external is a Service without a selector, whose slices an operator
	// writes by hand (managed by another agent), as for backends outside
	// the cluster.
	external := scenarios.NewService("external", 80)
	external.Spec.Selector = nil
	ns := scenarios.WorkloadNamespace
	// After its preStop sleep, SIGTERM: the application stops accepting
	// and takes 12 s to exit, unready (not serving) but terminating once
	// its readiness probe has failed twice.
	app := trafficApp(15)
	app.Annotations = annotations(kubelet.AnnotationShutdown, "12s")
	return scenarios.Spec{Name: "proxy-rules-traffic", Description: "web's 3 pods (a preStop sleep of 15 s) behind three Services: web, with two named ports (http 80/TCP to 8080, dns 53/UDP to 5353), web-local (internalTrafficPolicy Local: each node routes to its own pods alone), web-legacy (labelled for another proxy) and web-peers (headless), for which kube-proxy programs nothing; users send 10 requests a second to each of web's ports and, until 120 s, to web-local, through node-1 from 25 s; at 55 s the operator moves web's http port to 8000, at 80 s scales web to 0 (for the 15 s of the preStop sleep every endpoint is serving and terminating, and kube-proxy's terminating fallback (KEP-1669) keeps routing to them; then SIGTERM, and the application, 12 s to exit, fails its readiness probes: terminating and no longer serving, its endpoints get no traffic) and at 105 s back to 3, and at 125 s deletes web-local (its rules go, its slices are collected); meanwhile external, a Service without a selector, gets slices an operator writes by hand: at 30 s one with two ready addresses, one of FQDN addresses (which kube-proxy ignores), and at 40 s a second slice that lists another address and one of the first slice's again, not ready, on node-2 (node-2 prefers its own copy, so it alone leaves that address out); at 65 s the second slice is deleted alone, and at 90 s the Service, while its hand-written slices stay (no rules for them any more); proxy-rules-converge judges every node's rules at each quiet point",
		Duration: d, Settle: 30 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 3, Traffic: []apptraffic.Config{users("web", "http", d-trafficStop), users("web", "dns", d-trafficStop), users("web-local", "http", 120*time.Second)},
			Script: func(*scenarios.StackLayer) []apiload.Step {
				return sortSteps([]apiload.Step{
					scenarios.CreateStep(10*time.Second, scenarios.NewDeployment("web", 3, app)),
					scenarios.CreateStep(10*time.Second, web),
					scenarios.CreateStep(10*time.Second, local),
					scenarios.CreateStep(10*time.Second, legacy),
					scenarios.CreateStep(10*time.Second, headless),
					scenarios.UpdateStep(55*time.Second, "move-web-http", model.ResourceServicesName, scenarios.WorkloadNamespace, "web", func(o model.Object) {
						o.(*model.Service).Spec.Ports[0].Port = 8000
					}),
					scenarios.ScaleDeployment(80*time.Second, scenarios.WorkloadNamespace, "web", 0),
					scenarios.ScaleDeployment(105*time.Second, scenarios.WorkloadNamespace, "web", 3),
					scenarios.DeleteStep(125*time.Second, model.ResourceServicesName, scenarios.WorkloadNamespace, "web-local"),
					scenarios.CreateStep(30*time.Second, external),
					scenarios.CreateStep(30*time.Second, handSlice("external-1", model.AddressTypeIPv4, handEndpoint("10.0.9.1", "", true), handEndpoint("10.0.9.2", "", true))),
					scenarios.CreateStep(30*time.Second, handSlice("external-names", model.AddressTypeFQDN, handEndpoint("db.example.com", "", true))),
					scenarios.CreateStep(40*time.Second, handSlice("external-2", model.AddressTypeIPv4, handEndpoint("10.0.9.3", "", true), handEndpoint("10.0.9.1", "node-2", false))),
					scenarios.DeleteStep(65*time.Second, model.ResourceEndpointSlicesName, ns, "external-2"),
					scenarios.DeleteStep(90*time.Second, model.ResourceServicesName, ns, "external"),
				})
			}},
		Build: func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
			return []checks.Check{checks.NewNoTrafficToUnready(checks.NoTrafficToUnreadyOptions{})}, nil
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 66, Members: 3, Seed: 1, Reaches: "kube-proxy's rules for two named ports and protocols, a Local traffic policy, another proxy's and a headless Service, a port moved, a Service deleted, and a Service left with serving-terminating endpoints alone (this seed catches kube-proxy-no-terminating-fallback, -ignores-traffic-policy and -ignores-service-updates)"},
		},
	}
}

// handSlice is an EndpointSlice of the Service external that an operator
// writes by hand (managed by another agent than the EndpointSlice
// controller, which leaves it alone), with port http 8080/TCP.
func handSlice(name, addressType string, eps ...model.Endpoint) *model.EndpointSlice {
	return &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: name, Namespace: scenarios.WorkloadNamespace,
		Labels: map[string]string{model.LabelServiceName: "external", model.LabelManagedBy: "operator.example.com"}},
		AddressType: addressType, Endpoints: eps,
		Ports: []model.EndpointPort{{Name: model.Ptr("http"), Protocol: model.Ptr(model.ProtocolTCP), Port: model.Ptr(int32(8080))}}}
}

// handEndpoint is an endpoint with one address, on node (none for ""),
// ready or not (and serving likewise, never terminating).
func handEndpoint(addr, node string, ready bool) model.Endpoint {
	return model.Endpoint{Addresses: []string{addr}, NodeName: node,
		Conditions: model.EndpointConditions{Ready: model.Ptr(ready), Serving: model.Ptr(ready), Terminating: model.Ptr(false)}}
}
