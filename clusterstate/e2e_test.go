package clusterstate_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// runWithHistory runs spec at seed 1 with 3 members, its default
// duration, with a History subscribed from the start, and returns the
// History, the run's result and every event the filter kept (data
// copied by keep).
func runWithHistory(t *testing.T, spec scenarios.Spec, keep func(e *sim.Event) bool) (*clusterstate.History, scenarios.Result, []sim.Event) {
	p, err := scenarios.PrepareSpec(spec, scenarios.Options{Members: 3, Seed: 1})
	require.NoError(t, err)
	h := clusterstate.New()
	p.World.Subscribe(h.Observe)
	var kept []sim.Event
	p.World.Subscribe(func(e *sim.Event) {
		if keep(e) {
			kept = append(kept, *e)
		}
	})
	res, err := p.Run()
	require.NoError(t, err)
	require.True(t, res.OK, "%v", res.Failed())
	require.NoError(t, h.Err())
	return h, res, kept
}

// TestStackAgreesWithClusterReporter: on stack-chaos, the state the
// History rebuilds from etcd's Applies at the cluster reporter's revision
// is, field for field, what the reporter's quorum lists of pods, nodes,
// ReplicaSets and Deployments found (spoketrace.ClusterState, 2 s before
// the end).
func TestStackAgreesWithClusterReporter(t *testing.T) {
	spec, err := scenarios.Lookup("stack-chaos")
	require.NoError(t, err)
	h, _, kept := runWithHistory(t, spec, func(e *sim.Event) bool {
		cs, ok := e.Data.(*spoketrace.ClusterState)
		if ok {
			e.Data = cloneClusterState(cs)
		}
		return ok
	})
	require.Len(t, kept, 1, "one cluster-state report")
	want := kept[0].Data.(*spoketrace.ClusterState)
	require.NotEmpty(t, want.Pods)
	require.NotEmpty(t, want.ReplicaSets)
	require.NotEmpty(t, want.Deployments)

	rv, err := strconv.ParseInt(want.RV, 10, 64)
	require.NoError(t, err)
	s := h.AtRevision(rv)
	require.Equal(t, rv, s.Rev)
	require.LessOrEqual(t, s.At, kept[0].At, "the reported revision was committed before the report")
	got := apiload.NewClusterState(want.RV, s.List(model.ResourcePodsName, ""), s.List(model.ResourceNodesName, ""),
		s.List(model.ResourceReplicaSetsName, ""), s.List(model.ResourceDeploymentsName, ""))
	require.Equal(t, want, got)
	require.NoError(t, h.Err())
}

// cloneClusterState copies cs, which is valid only while it is observed.
func cloneClusterState(cs *spoketrace.ClusterState) *spoketrace.ClusterState {
	out := *cs
	out.Pods = slices.Clone(cs.Pods)
	out.Nodes = slices.Clone(cs.Nodes)
	for i := range out.Nodes {
		out.Nodes[i].Taints = slices.Clone(out.Nodes[i].Taints)
	}
	out.ReplicaSets = slices.Clone(cs.ReplicaSets)
	out.Deployments = slices.Clone(cs.Deployments)
	return &out
}

// TestAPIAgreesWithStateReporter: on api-chaos, and on its variant whose
// workload writes a custom kind, every end-of-run quorum list the state
// reporter traced (apitrace.ServerState: keys, resourceVersions and
// workload values) is what the History holds at that list's revision.
func TestAPIAgreesWithStateReporter(t *testing.T) {
	plain, err := scenarios.Lookup("api-chaos")
	require.NoError(t, err)
	custom := plain
	top := *plain.API
	top.Custom = &widgets
	custom.API = &top
	custom.Name = "api-chaos-custom"
	for _, tc := range []struct {
		spec      scenarios.Spec
		resources []string
	}{
		{plain, []string{model.ResourceLeasesName, model.ResourceReplicaSetsName}},
		{custom, []string{"widgets", model.ResourceReplicaSetsName}},
	} {
		t.Run(tc.spec.Name, func(t *testing.T) {
			h, _, kept := runWithHistory(t, tc.spec, func(e *sim.Event) bool {
				st, ok := e.Data.(*apitrace.ServerState)
				if ok {
					c := *st
					c.Items = slices.Clone(st.Items)
					e.Data = &c
				}
				return ok
			})
			var reported []string
			for _, e := range kept {
				want := e.Data.(*apitrace.ServerState)
				reported = append(reported, want.Resource)
				rv, err := strconv.ParseInt(want.RV, 10, 64)
				require.NoError(t, err)
				s := h.AtRevision(rv)
				require.Equal(t, rv, s.Rev)
				got := apiload.ServerStateOf(want.Resource, &client.ObjectList{Items: s.List(want.Resource, ""), ResourceVersion: want.RV},
					apiload.StateValueOf)
				require.Equal(t, want, got, "%s at revision %d", want.Resource, rv)
			}
			for _, res := range tc.resources {
				require.Contains(t, reported, res)
				require.NotEmpty(t, h.Final().List(res, ""), res)
			}
			require.NoError(t, h.Err())
		})
	}
}
