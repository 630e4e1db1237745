package podgc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

func pod(name, node string) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.PodSpec{NodeName: node, Containers: []model.Container{{Name: "app", Image: "app"}}}}
}

// TestPodsOfAGoneNodeAreDeletedAfterTheQuarantine: pods bound to a node
// that does not exist are force-deleted once the node has been missing for
// 40 s (checked every 20 s); pods of a node that exists stay.
func TestPodsOfAGoneNodeAreDeletedAfterTheQuarantine(t *testing.T) {
	c := apitest.New(7, 3, 1, nil)
	c.AddHost("kcm", func(h *sim.Host) {
		cl := client.New(h, client.Config{User: "system:kube-controller-manager", Servers: c.Servers})
		ctx := controllers.NewContext(h, cl, nil)
		gc := New(ctx, Config{})
		gc.Run()
		ctx.Pods.Run()
		ctx.Nodes.Run()
	})
	c.Settle()
	_, err := c.Create(&model.Node{ObjectMeta: model.ObjectMeta{Name: "alive"}})
	require.NoError(t, err)
	for _, p := range []*model.Pod{pod("on-alive", "alive"), pod("on-gone", "gone")} {
		_, err := c.Create(p)
		require.NoError(t, err)
	}
	start := c.W.Now()
	var goneAt sim.Time
	for goneAt == 0 && c.W.Now().Sub(start) < 2*time.Minute {
		c.Run(time.Second)
		if _, err := c.Get(model.ResourcePodsName, "default", "on-gone"); client.IsNotFound(err) {
			goneAt = c.W.Now()
		}
	}
	require.NotZero(t, goneAt, "the pod of the gone node was never deleted")
	// First seen missing at a check (within 20 s), deleted at the first
	// check 40 s or more later.
	require.GreaterOrEqual(t, goneAt.Sub(start), 40*time.Second)
	require.LessOrEqual(t, goneAt.Sub(start), 85*time.Second)
	_, err = c.Get(model.ResourcePodsName, "default", "on-alive")
	require.NoError(t, err, "a pod of an existing node was deleted")
}
