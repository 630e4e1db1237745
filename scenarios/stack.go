package scenarios

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/apptraffic"
	"github.com/kubesim/kubesim/nodes/controllers/endpointslice"
	"github.com/kubesim/kubesim/nodes/controllers/manager"
	"github.com/kubesim/kubesim/nodes/kubelet"
	"github.com/kubesim/kubesim/nodes/kubeproxy"
	"github.com/kubesim/kubesim/nodes/scheduler"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Roles of the spokes' hosts. None may reach etcd.
const (
	RoleKubelet           = "kubelet"
	RoleScheduler         = "scheduler"
	RoleControllerManager = "controller-manager"
	RoleOperator          = "operator"
)

// Defaults of StackTopology, as a small real cluster runs them.
const (
	DefaultSchedulers         = 2
	DefaultControllerManagers = 2
	DefaultNodes              = 5
	// stackEmitBefore is how long before the end the cluster state is
	// reported for the convergence check.
	stackEmitBefore = 2 * time.Second
	// rsObserver is the informer whose events carry every ReplicaSet's
	// UID and spec.replicas, for the double-running check.
	rsObserver = "observer/replicasets"
)

// The leader-elected components, as spoketrace.Leading names them.
const (
	ComponentScheduler         = scheduler.Component
	ComponentControllerManager = manager.Component
)

// StackTopology sizes a full-stack scenario: the API layer, the
// leader-elected schedulers and controller managers, the kubelets, and the
// operator's script that declares the workload.
type StackTopology struct {
	APIServers, Schedulers, ControllerManagers, Nodes int
	// Unelected adds schedulers that run without leader election (a second
	// scheduler deployed with --leader-elect=false by mistake): they race
	// the leader for every pending pod.
	Unelected int
	// Capacity of every node; default kubelet's (4 CPUs, 16Gi, 110 pods).
	Capacity model.ResourceList
	// Rogue adds a misbehaving client that impersonates node-1's kubelet
	// against node-2 (the node restriction) and a user without roles.
	Rogue bool
	// Script is what the operator does, given the built layer (the
	// workload: ReplicaSets and Deployments to create, scale, roll).
	Script func(l *StackLayer) []apiload.Step
	// ProbeExempt names pods whose probe restarts are measured, not
	// judged (checks.ProbeRestartsOptions.Exempt): a scenario that shows
	// what a misconfigured probe does.
	ProbeExempt func(pod string) bool
	// Policy is the API servers' authorization policy, as
	// APITopology.Policy; nil means rbac.Default().
	Policy *rbac.Policy
	// TolerationSeconds, when set, is the API servers'
	// --default-not-ready-toleration-seconds and
	// --default-unreachable-toleration-seconds (apiserver.Config): how long
	// the pods of a lost node tolerate its NoExecute taints before they are
	// evicted; 0 means the real default, 300.
	TolerationSeconds int64
	// Traffic are the application's users: clients outside the cluster,
	// each on a host of its own (named after the client, "users-N" by
	// default), sending requests to a Service through an entry node
	// (node-1 by default) whose kube-proxy rules route them.
	Traffic []apptraffic.Config
	// Custom are custom kinds the API servers serve, besides the built-in
	// ones, so that an operator's controller on the stack can store its
	// own objects and make Deployments from them, which the controller
	// manager turns into pods. The controller manager watches each one,
	// and its garbage collector collects the dependents of a deleted
	// custom owner. An invalid definition, or a plural or kind already
	// taken, fails BuildStack naming it (model.NewRegistry). None (every
	// catalogue scenario) changes nothing.
	Custom []model.CustomResourceDefinition
	// Ops are kinds of operation a swarm run switches on and off per seed
	// (StackOp): each is on with probability 1/2, at least one, and the
	// run reports those on. None (every scenario but the stack swarm)
	// draws nothing.
	Ops []StackOp
	// FaultEnd is when the run's faults end, for the ops' moments; set by
	// the scenario runner.
	FaultEnd time.Duration
	// opsDrawn says Ops are already the ops a swarm run switched on
	// (prepareStackOps).
	opsDrawn bool
	// MaxEndpointsPerSlice is the controller managers'
	// --max-endpoints-per-slice (1 to 1000; 0 means the default, 100):
	// how many endpoints the EndpointSlice controller puts in one slice,
	// and the most endpoints-converge allows. A small value makes
	// Services of a handful of pods span several slices, so that the
	// controller splits, fills, merges and reuses them.
	MaxEndpointsPerSlice int
}

// StackLayer is a built full stack: its hosts by name.
type StackLayer struct {
	*APILayer
	Schedulers, ControllerManagers, Nodes []string
	ServerIDs                             []sim.HostID
	Leaders                               *nemesis.SpokeLeaders
	Placement                             *nemesis.Placement
	Control                               *metrics.Control
	// Traffic measures what the application's users saw (requests,
	// success, latency); nil without StackTopology.Traffic.
	Traffic *metrics.Traffic
	// Dead are the nodes a nemesis crashed for good, for the operator's
	// script (which deletes their Node objects, as a cloud provider would).
	Dead []string
	// Spare are nodes a nemesis must not kill for good: the rogue client
	// keeps a pod bound to one, which would be left on a deleted node.
	Spare []string
	// Kinds are the kinds the API servers serve: the built-in ones and
	// StackTopology.Custom's (nil when there are none).
	Kinds *model.Registry
	// ops are the StackTopology.Ops a swarm run switched on.
	ops []StackOp
}

// Rand returns the world's random stream of that name, for a script that
// draws what it does (a swarm op's moments).
func (l *StackLayer) Rand(name string) *sim.Stream { return l.w.Rand(name) }

// BuildStack adds the full control plane to a built etcd cluster: API
// servers, schedulers, controller managers and kubelets (fault targets
// "apiservers", "schedulers", "controller-managers", "nodes",
// "scheduler-leader", "controller-manager-leader", and each host by name),
// the operator's script, an observer informer on ReplicaSets and the
// cluster-state reporter at end-2s.
func BuildStack(c *Cluster, top StackTopology, abl ablation.Set, end time.Duration) (*StackLayer, error) {
	w := c.World
	prepareStackOps(c, &top)
	if err := endpointslice.ValidateMaxEndpointsPerSlice(top.MaxEndpointsPerSlice); err != nil {
		return nil, fmt.Errorf("stack topology: %w", err)
	}
	var kinds *model.Registry
	if len(top.Custom) > 0 {
		var err error
		if kinds, err = model.NewRegistry(top.Custom...); err != nil {
			return nil, fmt.Errorf("stack topology: %w", err)
		}
	}
	api, servers, err := addAPIServers(c, top.APIServers, apiserver.Config{Policy: top.Policy, Ablations: abl, Resources: kinds,
		DefaultNotReadyTolerationSeconds: top.TolerationSeconds, DefaultUnreachableTolerationSeconds: top.TolerationSeconds})
	if err != nil {
		return nil, err
	}
	l := &StackLayer{APILayer: api, ServerIDs: servers, Kinds: kinds}
	l.Leaders = nemesis.NewSpokeLeaders(w)
	w.Subscribe(l.Leaders.Observe)
	l.Placement = nemesis.NewPlacement()
	w.Subscribe(l.Placement.Observe)
	c.Stack = l
	add := func(list *[]string, name, role string, boot func(*sim.Host), processes ...string) error {
		*list = append(*list, name)
		_, err := w.AddHost(sim.HostSpec{Name: name, Role: role, Boot: boot, Processes: processes})
		return err
	}
	n := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	for i := 1; i <= n(top.Nodes, DefaultNodes); i++ {
		name := fmt.Sprintf("node-%d", i)
		cfg := kubelet.Config{Node: name, Servers: servers, Capacity: top.Capacity, Ablations: abl}
		boot := kubeproxy.Beside(kubelet.Boot(cfg), kubeproxy.Config{Node: name, Servers: servers, Ablations: abl})
		if err := add(&l.Nodes, name, RoleKubelet, boot, kubelet.Process, kubeproxy.Process); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= n(top.Schedulers, DefaultSchedulers); i++ {
		name := fmt.Sprintf("scheduler-%d", i)
		cfg := scheduler.Config{Name: name, Servers: servers, Ablations: abl}
		if err := add(&l.Schedulers, name, RoleScheduler, scheduler.Boot(cfg)); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= top.Unelected; i++ {
		name := fmt.Sprintf("scheduler-unelected-%d", i)
		cfg := scheduler.Config{Name: name, Servers: servers, DisableLeaderElection: true, Ablations: abl}
		if err := add(&l.Schedulers, name, RoleScheduler, scheduler.Boot(cfg)); err != nil {
			return nil, err
		}
	}
	for i := 1; i <= n(top.ControllerManagers, DefaultControllerManagers); i++ {
		name := fmt.Sprintf("controller-manager-%d", i)
		cfg := manager.Config{Name: name, Servers: servers, Ablations: abl, Resources: kinds, MaxEndpointsPerSlice: top.MaxEndpointsPerSlice}
		if err := add(&l.ControllerManagers, name, RoleControllerManager, manager.Boot(cfg)); err != nil {
			return nil, err
		}
	}
	if top.Script != nil {
		if err := add(&l.Clients, "operator", RoleOperator, apiload.BootScript(apiload.ScriptConfig{Name: "operator", Servers: servers, Steps: top.Script(l)})); err != nil {
			return nil, err
		}
	}
	traffic := top.Traffic
	if len(top.Ops) > 0 {
		l.ops = top.Ops
		for _, op := range l.ops {
			traffic = append(traffic, op.Traffic...)
			if op.Steps == nil {
				continue
			}
			name := "operator-" + op.Name
			steps := op.Steps(l, w.Rand(stackOpStream(op.Name)), top.FaultEnd)
			if err := add(&l.Clients, name, RoleOperator, apiload.BootScript(apiload.ScriptConfig{Name: name, Servers: servers, Steps: steps})); err != nil {
				return nil, err
			}
		}
	}
	if len(traffic) > 0 {
		l.Traffic = metrics.NewTraffic()
		w.Subscribe(l.Traffic.Observe)
	}
	for i, tc := range traffic {
		if tc.Name == "" {
			tc.Name = fmt.Sprintf("users-%d", i+1)
		}
		if tc.Entry == "" && len(l.Nodes) > 0 {
			tc.Entry = l.Nodes[0]
		}
		// The users' way in stays up, as a load balancer's health check
		// would steer them around a dead node: a nemesis kills others.
		l.Spare = append(l.Spare, tc.Entry)
		if err := add(&l.Clients, tc.Name, RoleAPIClient, apptraffic.Boot(tc)); err != nil {
			return nil, err
		}
	}
	if top.Rogue && len(l.Nodes) >= 2 {
		cfg := apiload.RogueConfig{Name: "rogue", Servers: servers, Node: l.Nodes[0], OtherNode: l.Nodes[1], Until: end - QuietWindow}
		l.Spare = append(l.Spare, cfg.OtherNode)
		if err := add(&l.Clients, "rogue", RoleAPIClient, apiload.BootRogue(cfg)); err != nil {
			return nil, err
		}
	}
	observer := apiload.InformerConfig{Name: "observer", Servers: servers, Resources: []string{model.ResourceReplicaSetsName},
		ValueOf: checks.ReplicaSetValue}
	if err := add(&l.Clients, "observer", RoleAPIClient, apiload.BootInformers(observer)); err != nil {
		return nil, err
	}
	if err := add(&l.Clients, "cluster-state", RoleAPIClient, apiload.BootClusterReporter(apiload.ClusterReporterConfig{Name: "cluster-state", Servers: servers, At: end - stackEmitBefore})); err != nil {
		return nil, err
	}
	w.AddResolver(l.resolveStack)
	w.DeclareWithin("scheduler-leader", "schedulers")
	w.DeclareWithin("controller-manager-leader", "controller-managers")
	l.Control = metrics.NewControl(w, l.ControllerManagers, l.Servers)
	w.Subscribe(l.Control.Observe)
	return l, nil
}

// resolveStack knows "schedulers", "controller-managers", "nodes",
// "scheduler-leader" and "controller-manager-leader" (the current leader,
// or nobody).
func (l *StackLayer) resolveStack(name string) ([]sim.HostID, bool) {
	return l.resolveIn(name, map[string][]string{"schedulers": l.Schedulers, "controller-managers": l.ControllerManagers,
		"nodes": l.Nodes, "scheduler-leader": l.Leaders.Leader(ComponentScheduler),
		"controller-manager-leader": l.Leaders.Leader(ComponentControllerManager)})
}
