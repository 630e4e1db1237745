package apiload

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// PodTemplateHashLabel is the label the deployment controller puts on a
// ReplicaSet and its pods to tell template revisions apart
// (appsv1.DefaultDeploymentUniqueLabelKey).
const PodTemplateHashLabel = "pod-template-hash"

// How the cluster reporter retries a list that failed: the state is wanted
// at one moment near the end of a run, so a list is tried a few times
// within about two seconds (attempts × (timeout + pause)), then given up.
const (
	clusterListAttempts = 5
	clusterListTimeout  = 300 * time.Millisecond
	clusterListPause    = 100 * time.Millisecond
)

// ClusterReporterConfig configures the host that reports the cluster's
// state for the convergence check.
type ClusterReporterConfig struct {
	// Name is the client's name; empty means the host's name.
	Name string
	// Servers are the API server replicas.
	Servers []sim.HostID
	// At is the virtual time of the report.
	At time.Duration
}

// clusterResources are what the reporter lists, in order.
var clusterResources = []string{model.ResourcePodsName, model.ResourceNodesName,
	model.ResourceReplicaSetsName, model.ResourceDeploymentsName}

// BootClusterReporter returns the Boot function of a host that, at cfg.At,
// lists pods, nodes, replicasets and deployments in every namespace as
// "admin" with quorum reads (resourceVersion ""), one after another, and
// emits them as one spoketrace.ClusterState (NewClusterState) whose RV is
// the last list's resourceVersion. A list that fails is retried a few
// times within about two seconds (a short request timeout, failing over
// between the replicas); if it still fails, nothing is emitted, and the
// convergence check reports that no cluster state came.
func BootClusterReporter(cfg ClusterReporterConfig) func(*sim.Host) {
	return func(h *sim.Host) {
		c := client.New(h, client.Config{Name: defaults.HostName(cfg.Name, h), User: DefaultUser, Servers: cfg.Servers,
			Timeout: clusterListTimeout})
		at := sim.Time(cfg.At)
		if h.Now() > at {
			return
		}
		h.After(at.Sub(h.Now()), "apiload-cluster-state", func() {
			r := &clusterReport{h: h, c: c}
			r.listNext()
		})
	}
}

// clusterReport is one report in progress: the lists made so far.
type clusterReport struct {
	h        *sim.Host
	c        *client.Client
	lists    [][]model.Object
	rv       string
	attempts int
}

// listNext lists the next resource, or emits the state once all are
// listed.
func (r *clusterReport) listNext() {
	if len(r.lists) == len(clusterResources) {
		r.h.Emit(NewClusterState(r.rv, r.lists[0], r.lists[1], r.lists[2], r.lists[3]))
		return
	}
	res := clusterResources[len(r.lists)]
	r.c.Resource(res, "").List(client.ListOptions{}, func(l *client.ObjectList, err error) {
		if err != nil {
			r.attempts++
			if r.attempts < clusterListAttempts {
				r.h.After(clusterListPause, "apiload-cluster-state-retry", r.listNext)
			}
			return
		}
		r.attempts = 0
		r.lists = append(r.lists, l.Items)
		r.rv = l.ResourceVersion
		r.listNext()
	})
}

// sortedByKey returns objs sorted by namespace/name.
func sortedByKey(objs []model.Object) []model.Object {
	st := cache.NewStore()
	for _, obj := range objs {
		st.Add(obj)
	}
	return st.List()
}

// NewClusterState turns quorum lists into spoketrace.ClusterState: every
// slice sorted by key; a pod's or ReplicaSet's Owner is the UID of its
// controlling ownerReference; a pod is Ready when its Ready condition is
// True, and its Restarts are summed over its containers; Template is the
// pod-template-hash label (a ReplicaSet's own, else its template's); a
// node's Ready is its Ready condition's status ("Unknown" when it has
// none) and its taints print as "key:effect"; a Deployment's Progressing
// is the reason of its Progressing condition. Objects of another type
// than the slice's are skipped.
func NewClusterState(rv string, pods, nodes, replicaSets, deployments []model.Object) *spoketrace.ClusterState {
	return &spoketrace.ClusterState{RV: rv,
		Pods:        states(pods, podState),
		Nodes:       states(nodes, nodeState),
		ReplicaSets: states(replicaSets, replicaSetState),
		Deployments: states(deployments, deploymentState),
	}
}

// states returns the state of each object of type T in objs, sorted by
// key; nil when there is none.
func states[T model.Object, S any](objs []model.Object, state func(T) S) []S {
	var out []S
	for _, obj := range sortedByKey(objs) {
		if o, ok := obj.(T); ok {
			out = append(out, state(o))
		}
	}
	return out
}

// controllerUID is the UID of obj's controlling owner, or "".
func controllerUID(obj model.Object) string {
	if ref := model.GetControllerOf(obj); ref != nil {
		return string(ref.UID)
	}
	return ""
}

func podState(p *model.Pod) spoketrace.PodState {
	restarts := 0
	for _, cs := range p.Status.ContainerStatuses {
		restarts += int(cs.RestartCount)
	}
	return spoketrace.PodState{
		Key:      cache.MetaNamespaceKeyFunc(p),
		UID:      string(p.UID),
		Owner:    controllerUID(p),
		Node:     p.Spec.NodeName,
		Phase:    string(p.Status.Phase),
		Ready:    model.IsPodReady(p),
		Deleting: p.DeletionTimestamp != nil,
		Restarts: restarts,
		Template: p.Labels[PodTemplateHashLabel],
	}
}

func nodeState(n *model.Node) spoketrace.NodeState {
	ns := spoketrace.NodeState{Name: n.Name, Ready: string(model.NodeReadyStatus(n))}
	for _, t := range n.Spec.Taints {
		ns.Taints = append(ns.Taints, t.Key+":"+string(t.Effect))
	}
	return ns
}

func replicaSetState(rs *model.ReplicaSet) spoketrace.ReplicaSetState {
	tmpl, ok := rs.Labels[PodTemplateHashLabel]
	if !ok {
		tmpl = rs.Spec.Template.Labels[PodTemplateHashLabel]
	}
	return spoketrace.ReplicaSetState{
		Key:      cache.MetaNamespaceKeyFunc(rs),
		UID:      string(rs.UID),
		Owner:    controllerUID(rs),
		Replicas: int(model.Deref(rs.Spec.Replicas, 1)), // spec.replicas defaults to 1
		Deleting: rs.DeletionTimestamp != nil,
		Template: tmpl,
	}
}

func deploymentState(d *model.Deployment) spoketrace.DeploymentState {
	ds := spoketrace.DeploymentState{
		Key:                cache.MetaNamespaceKeyFunc(d),
		UID:                string(d.UID),
		Replicas:           int(model.Deref(d.Spec.Replicas, 1)), // spec.replicas defaults to 1
		Generation:         d.Generation,
		ObservedGeneration: d.Status.ObservedGeneration,
		UpdatedReplicas:    int(d.Status.UpdatedReplicas),
		AvailableReplicas:  int(d.Status.AvailableReplicas),
		StatusReplicas:     int(d.Status.Replicas),
	}
	for _, c := range d.Status.Conditions {
		if c.Type == model.DeploymentProgressing {
			ds.Progressing = c.Reason
		}
	}
	return ds
}
