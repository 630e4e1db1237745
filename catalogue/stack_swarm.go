package catalogue

import (
	"fmt"
	"slices"
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

// stackSwarmOps are the kinds of operation stack-swarm switches on and off
// per seed, beside its fault kinds: each reaches mechanisms that
// stack-chaos's fixed script never does, at moments drawn per seed, under
// whatever faults the seed drew. Every check of the stack judges them
// (probe-semantics, probe-restarts, endpoints-timely, service-routing,
// ownership, controller-deletes, rollout-bounds), and the swarm's own
// checks judge traffic and a dead node (stackSwarmChecks). Two of them
// lose a node for good after the faults: node-death deletes its Node (pod
// GC collects its pods), node-lost keeps it (its pods are evicted, as
// controller-deletes judges against their tolerations, Terminating until
// the end, and replaced).
func stackSwarmOps(d time.Duration) []scenarios.StackOp {
	return []scenarios.StackOp{
		{Name: "probes", Steps: probesOp},
		{Name: "traffic", Traffic: []apptraffic.Config{{Name: "users-front", Service: scenarios.WorkloadNamespace + "/front", PortName: "http",
			Rate: 10, Start: sim.Time(trafficStart), Stop: sim.Time(d - trafficStop)}}, Steps: trafficOp},
		{Name: "owners", Steps: ownersOp},
		{Name: "scale", Steps: scaleOp},
		{Name: "shapes", Steps: shapesOp},
		{Name: "slices", Steps: slicesOp},
		{Name: "small-slices", Apply: func(t *scenarios.StackTopology) { t.MaxEndpointsPerSlice = 3 }},
		{Name: "node-death", Steps: func(l *scenarios.StackLayer, _ *sim.Stream, faultEnd time.Duration) []apiload.Step {
			return []apiload.Step{deleteDeadNodes(faultEnd+40*time.Second, l)}
		}, Drive: func(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration) {
			nemesis.KillBusiestNode(c, faultEnd+between(rng, 0, 20*time.Second))
		}},
		{Name: "node-lost", Apply: func(t *scenarios.StackTopology) { t.TolerationSeconds = lostToleration }, Drive: func(c *nemesis.Cluster, rng *sim.Stream, faultEnd time.Duration) {
			nemesis.LoseBusiestNode(c, faultEnd+between(rng, 0, 20*time.Second))
		}},
	}
}

// lostToleration is the API servers' --default-not-ready-toleration-seconds
// and --default-unreachable-toleration-seconds with the node-lost
// operation on, as an operator sets them for a faster failover: the pods
// of the node lost after the faults are evicted about 85 s after it died
// (50 s of node monitor grace, a monitor period, 30 s of toleration), and
// replaced well before the end.
const lostToleration = 30

// between draws a duration in [lo, hi).
func between(rng *sim.Stream, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}

// within draws a moment between 30 s and the end of the faults, to the
// second.
func within(rng *sim.Stream, faultEnd time.Duration) time.Duration {
	return between(rng, 30*time.Second, max(faultEnd, 31*time.Second)).Truncate(time.Second)
}

// window prints a window of world time of the simulated application's
// annotations: "40s-70s".
func window(from, length time.Duration) string {
	return fmt.Sprintf("%ds-%ds", int(from.Seconds()), int((from + length).Seconds()))
}

// probesOp runs probed: three pods behind the Service probed, with a
// startup probe over a warm-up drawn per seed, a liveness probe that
// tolerates the busy window's slow answers, and a readiness probe that
// does not; their endpoints fail in patterns in windows drawn within the
// faults (readiness alone and in pairs; liveness twice in a row, which
// its threshold of 3 forgives, or three times, which it does not). It is
// rolled out once, so new pods warm up under the faults too.
func probesOp(_ *scenarios.StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step {
	warmup := between(rng, 2*time.Second, 12*time.Second).Truncate(time.Second)
	busy := within(rng, faultEnd)
	ready := within(rng, faultEnd)
	live := within(rng, faultEnd)
	livePattern := []string{"FFS", "FFFS"}[rng.IntN(2)]
	app := scenarios.AppSpec{CPU: "100m", Memory: "64Mi",
		Annotations: annotations(kubelet.AnnotationWarmup, warmup.String(),
			kubelet.AnnotationLoad, window(busy, 30*time.Second)+"=3s",
			kubelet.AnnotationReadinessPattern, window(ready, 40*time.Second)+"=FSFFSS",
			kubelet.AnnotationLivenessPattern, window(live, 30*time.Second)+"="+livePattern),
		Startup:   &model.Probe{PeriodSeconds: 2, FailureThreshold: 15},
		Liveness:  &model.Probe{PeriodSeconds: 5, TimeoutSeconds: 5, FailureThreshold: 3},
		Readiness: &model.Probe{PeriodSeconds: 2, TimeoutSeconds: 1, FailureThreshold: 2, SuccessThreshold: 2}}
	return []apiload.Step{
		scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("probed", 3, app)),
		scenarios.CreateStep(15*time.Second, scenarios.NewService("probed", 80)),
		scenarios.RollDeployment(within(rng, faultEnd), scenarios.WorkloadNamespace, "probed", "registry.example/probed:2"),
	}
}

// trafficOp runs front: four pods behind the Service front, ready by a
// probe, draining for 5 s in a preStop sleep, under its users' 10
// requests a second through node-1; rolled out, scaled down and one pod
// quarantined at moments drawn within the faults.
func trafficOp(_ *scenarios.StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step {
	app := trafficApp(5)
	app.CPU, app.Memory = "100m", "64Mi"
	steps := []apiload.Step{
		scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("front", 4, app)),
		scenarios.CreateStep(15*time.Second, scenarios.NewService("front", 80)),
		scenarios.RollDeployment(within(rng, faultEnd), scenarios.WorkloadNamespace, "front", "registry.example/front:2"),
	}
	steps = append(steps, scenarios.ScaleDeployment(within(rng, faultEnd), scenarios.WorkloadNamespace, "front", 3),
		scenarios.QuarantinePod(within(rng, faultEnd), scenarios.WorkloadNamespace, "front"))
	return sortSteps(steps)
}

// ownersOp makes objects several controllers could claim, and owners
// replaced under their dependents (overlapping-owners' steps), at moments
// drawn within the faults: a canary of web whose pods match web's
// selector too, stray pods an operator made by hand that match them, a
// web pod taken out for debugging, and the api Deployment replaced.
func ownersOp(_ *scenarios.StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step {
	api := scenarios.NewDeployment("api", 4, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})
	api.Spec.RevisionHistoryLimit = model.Ptr(int32(1))
	return sortSteps([]apiload.Step{
		scenarios.CreateStep(20*time.Second, newCanary("web", 1, scenarios.AppSpec{})),
		scenarios.CreateStep(within(rng, faultEnd), barePod("stray-web", map[string]string{"app": "web"})),
		scenarios.CreateStep(within(rng, faultEnd), barePod("stray-canary", map[string]string{"app": "web", "track": "canary"})),
		relabelPod(within(rng, faultEnd), "app=web,track!=canary", map[string]string{"app": "debug"}),
		replaceDeployment(within(rng, faultEnd), api),
	})
}

// scaleOp scales web and the api Deployment down and up again at moments
// drawn within the faults: a scale of a Deployment in the middle of a
// rollout makes the Deployment controller scale its ReplicaSets
// proportionally.
func scaleOp(_ *scenarios.StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step {
	return sortSteps([]apiload.Step{
		scenarios.ScaleReplicaSet(within(rng, faultEnd), scenarios.WorkloadNamespace, "web", 3),
		scenarios.ScaleReplicaSet(within(rng, faultEnd), scenarios.WorkloadNamespace, "web", 7),
		scenarios.ScaleDeployment(within(rng, faultEnd), scenarios.WorkloadNamespace, "api", 2),
		scenarios.ScaleDeployment(within(rng, faultEnd), scenarios.WorkloadNamespace, "api", 6),
	})
}

// afterFaults is how long after the faults a step comes that must be
// judged at a quiet point: the checks that judge still states
// (endpoints-converge, proxy-rules-converge) wait 60 s after the last
// fault.
const afterFaults = 65 * time.Second

// shapesOp runs shapes: three pods (a preStop sleep of 15 s, then 12 s to
// exit, unready, past their 20 s of grace: SIGKILL) behind Services of every shape kube-proxy treats
// differently, as proxy-rules-traffic has them: shapes with two named
// ports (http/TCP, dns/UDP), shapes-local (internalTrafficPolicy Local),
// shapes-peers (headless). Within the faults, shapes' http port moves and
// shapes-local is deleted; after them its dns port moves (judged at the
// quiet point that follows), and shapes is scaled to 0 and back, so
// that a quiet point sees only serving-and-terminating endpoints (the
// terminating fallback), then terminating ones that no longer serve.
func shapesOp(_ *scenarios.StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step {
	app := trafficApp(15)
	app.CPU, app.Memory = "100m", "64Mi"
	app.Annotations = annotations(kubelet.AnnotationShutdown, "12s")
	// 20 s of grace: after the 15 s preStop sleep, SIGTERM leaves 5 s, and
	// the kubelet kills the application, 12 s to exit, at 20 s.
	app.GracePeriod = model.Ptr(int64(20))
	svc := scenarios.NewService("shapes", 80)
	svc.Spec.Ports = []model.ServicePort{
		{Name: "http", Port: 80, Protocol: model.ProtocolTCP, TargetPort: model.FromInt(8080)},
		{Name: "dns", Port: 53, Protocol: model.ProtocolUDP, TargetPort: model.FromInt(5353)}}
	local := scenarios.NewService("shapes-local", 80)
	local.Spec.Selector = svc.Spec.Selector
	local.Spec.InternalTrafficPolicy = model.ServiceTrafficPolicyLocal
	peers := scenarios.NewService("shapes-peers", 80)
	peers.Spec.Selector = svc.Spec.Selector
	peers.Spec.ClusterIP = model.ClusterIPNone
	ns := scenarios.WorkloadNamespace
	down := faultEnd + afterFaults + 15*time.Second + between(rng, 0, 5*time.Second).Truncate(time.Second)
	return sortSteps([]apiload.Step{
		scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("shapes", 3, app)),
		scenarios.CreateStep(15*time.Second, svc),
		scenarios.CreateStep(15*time.Second, local),
		scenarios.CreateStep(15*time.Second, peers),
		scenarios.UpdateStep(within(rng, faultEnd), "move-shapes-http", model.ResourceServicesName, ns, "shapes", func(o model.Object) {
			o.(*model.Service).Spec.Ports[0].Port = 8000
		}),
		scenarios.DeleteStep(within(rng, faultEnd), model.ResourceServicesName, ns, "shapes-local"),
		scenarios.UpdateStep(faultEnd+afterFaults, "move-shapes-dns", model.ResourceServicesName, ns, "shapes", func(o model.Object) {
			o.(*model.Service).Spec.Ports[1].Port = 5300
		}),
		scenarios.ScaleDeployment(down, ns, "shapes", 0),
		scenarios.ScaleDeployment(down+45*time.Second, ns, "shapes", 3),
	})
}

// slicesOp has a user meddle with web's slices, as kubectl delete, edit
// and a re-applied old manifest do: within the faults and once after
// them, a slice deleted, one edited (an endpoint removed) and one copied
// (every endpoint listed twice); the EndpointSlice controller must
// repair each.
func slicesOp(_ *scenarios.StackLayer, rng *sim.Stream, faultEnd time.Duration) []apiload.Step {
	ns := scenarios.WorkloadNamespace
	late := faultEnd + afterFaults + 55*time.Second // after shapes' scale to 0 and back
	return sortSteps([]apiload.Step{
		scenarios.DeleteEndpointSlice(within(rng, faultEnd), ns, "web"),
		scenarios.EditEndpointSlice(within(rng, faultEnd), ns, "web"),
		scenarios.CopyEndpointSlice(within(rng, faultEnd), ns, "web-blue"),
		scenarios.DeleteEndpointSlice(late, ns, "web"),
		scenarios.EditEndpointSlice(late+10*time.Second, ns, "web-green"),
		scenarios.CopyEndpointSlice(late+20*time.Second, ns, "web"),
	})
}

// sortSteps orders steps by their time, keeping the order of those at one
// time: an operator does them in turn.
func sortSteps(steps []apiload.Step) []apiload.Step {
	for i := 1; i < len(steps); i++ {
		for j := i; j > 0 && steps[j].At < steps[j-1].At; j-- {
			steps[j], steps[j-1] = steps[j-1], steps[j]
		}
	}
	return steps
}

// stackSwarmChecks judge what the swarm's ops bring beside the stack's
// own checks: with traffic on, requests reach only ready pods
// (no-traffic-to-unready, which fails a run where no request was judged,
// so it runs only then). A node that dies for good is judged by the
// stack's checks (convergence: no pod left bound to its deleted Node, the
// owners whole again; controller-deletes: pod GC deletes only what it
// may), not by self-healing, which expects every pod that ran there to be
// replaced by its owner and does not follow a pod released by its owner
// (the owners op) or an owner scaled down or rolled out (traffic, scale).
func stackSwarmChecks(c *scenarios.Cluster, _ scenarios.Env) ([]checks.Check, error) {
	if slices.Contains(c.SwarmOps, "traffic") {
		return []checks.Check{checks.NewNoTrafficToUnready(checks.NoTrafficToUnreadyOptions{})}, nil
	}
	return nil, nil
}
