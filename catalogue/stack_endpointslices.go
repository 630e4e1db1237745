package catalogue

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Settings of endpointslice-churn.
const (
	// churnMaxPerSlice is its controller managers'
	// --max-endpoints-per-slice: Services of 4 to 10 pods span two to
	// four slices, which the controller splits, fills and merges as pods
	// come and go.
	churnMaxPerSlice = 3
	churnDuration    = 270 * time.Second
	churnSettle      = 100 * time.Second // the faults end at 170 s
)

// endpointSliceChurn is endpointslice-churn: the EndpointSlice
// controller's rarer paths (slice packing, other writers of its slices,
// Service edits) under a controller manager's crashes and an API server
// cut off from etcd.
func endpointSliceChurn() scenarios.Spec {
	ns := scenarios.WorkloadNamespace
	addMetricsPort := func(s *model.ServiceSpec) {
		if len(s.Ports) == 1 {
			s.Ports = append(s.Ports, model.ServicePort{Name: "metrics", Port: 9090})
		}
	}
	retarget := func(s *model.ServiceSpec) { s.Ports[0].TargetPort = model.FromInt(8080) }
	noSelector := func(s *model.ServiceSpec) { s.Selector = nil }
	apiSelector := func(s *model.ServiceSpec) { s.Selector = map[string]string{"app": "api"} }
	return scenarios.Spec{Name: "endpointslice-churn",
		Description: "the EndpointSlice controller's rarer paths, with --max-endpoints-per-slice 3 so that web (a Deployment of 7 to 10 pods behind the Service web and the slot Services web-blue and web-green) and api (a ReplicaSet of 5 to 8 pods behind the Service api) span several slices each: the operator scales both up and down, rolls web out, moves web's pods between the slot Services, edits api's ports (a port added, a targetPort changed: every slice's port mapping changes), removes api's selector and restores it, and deletes and recreates api under the same name; and a user deletes slices of web and api, removes endpoints from slices of api, web-blue and web by hand, and re-applies a copy of a slice of web-blue (every endpoint in it listed twice); " +
			"from 95 s to 170 s the controller manager's leader crashes twice and an API server is cut off from etcd for 10 to 20 s, while the operator and the user go on. " +
			"No slice ever holds more than 3 endpoints, every Service's slices list exactly its pods, and every change, of a pod, a Service or a slice, shows in the slices within 2 s (of the recovery, under the faults); the two last tamperings come after the recovery",
		Duration: churnDuration, Settle: churnSettle, Members: []int{3},
		Stack: &scenarios.StackTopology{Nodes: 3, MaxEndpointsPerSlice: churnMaxPerSlice, Script: func(*scenarios.StackLayer) []apiload.Step {
			return []apiload.Step{
				scenarios.CreateStep(15*time.Second, scenarios.NewDeployment("web", 7, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("web", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewSlotService("web", "blue", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewSlotService("web", "green", 80)),
				scenarios.CreateStep(15*time.Second, scenarios.NewReplicaSet("api", 5, scenarios.AppSpec{CPU: "100m", Memory: "128Mi"})),
				scenarios.CreateStep(15*time.Second, scenarios.NewService("api", 80)),
				// Packing, and the other writers, with no fault about: each
				// is judged 2 s after it.
				scenarios.SlotPods(30*time.Second, ns, "web", "blue", 4),
				scenarios.ScaleDeployment(35*time.Second, ns, "web", 9),
				scenarios.DeleteEndpointSlice(45*time.Second, ns, "web"),
				scenarios.EditEndpointSlice(50*time.Second, ns, "api"),
				scenarios.ScaleDeployment(55*time.Second, ns, "web", 4),
				scenarios.CopyEndpointSlice(62*time.Second, ns, "web-blue"),
				scenarios.EditService(68*time.Second, "add-port-api", ns, "api", addMetricsPort),
				scenarios.ScaleDeployment(72*time.Second, ns, "web", 8),
				scenarios.RollDeployment(76*time.Second, ns, "web", "registry.example/web:2"),
				scenarios.EditService(84*time.Second, "retarget-api", ns, "api", retarget),
				scenarios.SlotPods(90*time.Second, ns, "web", "green", 3),
				// Under the faults.
				scenarios.DeleteEndpointSlice(100*time.Second, ns, "api"),
				scenarios.EditService(108*time.Second, "unselect-api", ns, "api", noSelector),
				scenarios.ScaleReplicaSet(114*time.Second, ns, "api", 8),
				scenarios.EditService(122*time.Second, "reselect-api", ns, "api", apiSelector),
				scenarios.EditEndpointSlice(130*time.Second, ns, "web-blue"),
				scenarios.DeleteStep(138*time.Second, model.ResourceServicesName, ns, "api"),
				scenarios.CreateStep(142*time.Second, scenarios.NewService("api", 80)),
				scenarios.SlotPods(150*time.Second, ns, "web", "blue", 2),
				scenarios.ScaleDeployment(158*time.Second, ns, "web", 5),
				scenarios.ScaleReplicaSet(164*time.Second, ns, "api", 6),
				// After the recovery (60 s after the last fault).
				scenarios.DeleteEndpointSlice(235*time.Second, ns, "api"),
				scenarios.EditEndpointSlice(245*time.Second, ns, "web"),
			}
		}},
		Faults: func(c *nemesis.Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
			jitter := func(d time.Duration) time.Duration { return time.Duration(rng.Int64N(int64(d))) }
			return sim.Schedule{
				{At: 95*time.Second + jitter(5*time.Second), Kind: sim.FaultCrash, Targets: [][]string{{"controller-manager-leader"}}, For: 5*time.Second + jitter(10*time.Second)},
				{At: 118*time.Second + jitter(5*time.Second), Kind: sim.FaultPartition, Targets: [][]string{{nemesis.PickServer(c, rng)}, {"etcd"}}, For: 10*time.Second + jitter(10*time.Second)},
				{At: 145*time.Second + jitter(5*time.Second), Kind: sim.FaultCrash, Targets: [][]string{{"controller-manager-leader"}}, For: 5*time.Second + jitter(10*time.Second)},
			}
		},
		BugHunt: []scenarios.BugHuntRun{
			{Rank: 65, Members: 3, Seed: 1, Reaches: "the EndpointSlice controller's packing at --max-endpoints-per-slice 3, slices deleted, edited and relabelled by a user, Service ports and selector edited, a Service recreated, under controller manager crashes"},
		},
	}
}
