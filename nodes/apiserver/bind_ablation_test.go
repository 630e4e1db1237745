package apiserver

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestBindNoConflictCheckAblation binds a bound pod (and a bound pod being
// deleted) a second time: the real API server refuses with 409 Conflict;
// with the scheduler-no-conflict-check ablation the second bind succeeds and
// overwrites spec.nodeName.
func TestBindNoConflictCheckAblation(t *testing.T) {
	bind := func(name, node string) *apiwire.Request {
		return &apiwire.Request{User: "system:kube-scheduler", Verb: apiwire.VerbBind, Resource: "pods",
			Namespace: "default", Name: name, NodeName: node}
	}
	tests := []struct {
		name     string
		ablation bool
		deleting bool
		wantCode int
		wantMsg  string
		wantNode string
	}{
		{name: "bound pod, real server", wantCode: 409, wantNode: "n1",
			wantMsg: `Operation cannot be fulfilled on pods/binding "a": pod a is already assigned to node "n1"`},
		{name: "deleting pod, real server", deleting: true, wantCode: 409, wantNode: "n1",
			wantMsg: `Operation cannot be fulfilled on pods/binding "a": pod a is being deleted, cannot be assigned to a host`},
		{name: "bound pod, ablation", ablation: true, wantCode: 200, wantNode: "n2"},
		{name: "deleting pod, ablation", ablation: true, deleting: true, wantCode: 200, wantNode: "n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tw := newWorld(t, 11, 1, func(c *Config) { c.Ablations = ablation.When(tt.ablation, ablation.BindNoConflictCheck) })
			tw.must(0, create(newPod("a")))
			first := tw.must(0, bind("a", "n1")).Object.(*model.Pod)
			require.Equal(t, "n1", first.Spec.NodeName)
			if tt.deleting {
				marked := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbDelete, Resource: "pods",
					Namespace: "default", Name: "a"}).Object.(*model.Pod)
				require.NotNil(t, marked.DeletionTimestamp, "a bound pod is only marked for deletion")
			}
			resp := tw.do(0, bind("a", "n2"))
			require.Equal(t, tt.wantCode, resp.Status.Code)
			if tt.wantMsg != "" {
				require.Equal(t, tt.wantMsg, resp.Status.Message)
			}
			stored := tw.must(0, getPod("a")).Object.(*model.Pod)
			require.Equal(t, tt.wantNode, stored.Spec.NodeName)
		})
	}
}
