package deployment

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/controllers"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

// idleController returns a controller that was made but never run, on a
// client of the given user: its queue only collects keys (no worker takes
// them), and its informers hold what the test puts in their stores.
func idleController(t *testing.T, user string) (*Controller, *apitest.Cluster) {
	cl := apitest.New(11, 1, 1, nil)
	cl.AddHost("kcm", func(h *sim.Host) {
		c := client.New(h, client.Config{Name: "kcm", User: user, Servers: cl.Servers})
		h.Expose("controller", New(controllers.NewContext(h, c, nil), Config{}))
	})
	cl.Settle()
	return cl.Host("kcm").Exposed("controller").(*Controller), cl
}

// storedDeployment puts a Deployment of that name and UID in the
// controller's informer.
func storedDeployment(c *Controller, name string) *model.Deployment {
	d := newDeployment(name, 2, name+":1")
	d.UID = model.UID(name + "-uid")
	c.ctx.Deployments.GetStore().Add(d)
	return d
}

// ownedBy returns a ReplicaSet at resourceVersion rv controlled by d (nil:
// by nobody).
func ownedBy(d *model.Deployment, rv string) *model.ReplicaSet {
	rs := rsAt("web-abc", 1, 2, 2, 0)
	rs.Namespace, rs.ResourceVersion = ns, rv
	if d != nil {
		rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(d, model.KindDeployment)}
	}
	return rs
}

// queued drains the keys the controller queued, in queue order.
func queued(c *Controller) []string {
	var out []string
	for {
		key, ok := c.queue.Get()
		if !ok {
			return out
		}
		out = append(out, key)
		c.queue.Done(key)
	}
}

// TestReplicaSetEventsSyncTheirOwners follows the real updateReplicaSet and
// deleteReplicaSet (kubernetes/kubernetes pkg/controller/deployment/
// deployment_controller.go): a ReplicaSet whose controller reference
// changed syncs its former owner as well as its current one, an orphaned
// one its former owner; a deleted one syncs its owner.
func TestReplicaSetEventsSyncTheirOwners(t *testing.T) {
	c, _ := idleController(t, "system:kube-controller-manager")
	a, b := storedDeployment(c, "a"), storedDeployment(c, "b")

	c.handleReplicaSetUpdate(ownedBy(a, "1"), ownedBy(a, "2"))
	require.Equal(t, []string{"default/a"}, queued(c), "same owner")

	c.handleReplicaSetUpdate(ownedBy(a, "2"), ownedBy(nil, "3"))
	require.Equal(t, []string{"default/a"}, queued(c), "orphaned: the former owner syncs")

	c.handleReplicaSetUpdate(ownedBy(a, "3"), ownedBy(b, "4"))
	require.Equal(t, []string{"default/a", "default/b"}, queued(c), "owner changed: both sync")

	c.handleReplicaSetUpdate(ownedBy(nil, "4"), ownedBy(nil, "5"))
	require.Empty(t, queued(c), "an orphan stays an orphan")

	c.handleReplicaSetDelete(ownedBy(b, "5"))
	require.Equal(t, []string{"default/b"}, queued(c), "deleted: its owner syncs")
}

// TestFailingKeyDroppedAfterMaxRetries follows the real handleErr
// (kubernetes/kubernetes pkg/controller/deployment/deployment_controller.go):
// a sync error requeues the key with backoff while NumRequeues <
// maxRetries (15); at 15 the key is dropped (Forget, no requeue). The sync
// here fails because the controller's user may not create ReplicaSets.
func TestFailingKeyDroppedAfterMaxRetries(t *testing.T) {
	for _, tc := range []struct {
		requeues int
		wantErr  bool
	}{{0, true}, {maxRetries - 1, true}, {maxRetries, false}, {maxRetries + 3, false}} {
		c, cl := idleController(t, "system:nobody")
		d := storedDeployment(c, "web")
		key := cache.MetaNamespaceKeyFunc(d)
		for range tc.requeues {
			c.queue.AddRateLimited(key)
		}
		require.Equal(t, tc.requeues, c.queue.NumRequeues(key))
		var got error
		finished := false
		c.processKey(key, func(err error) { got, finished = err, true })
		for i := 0; i < 100 && !finished; i++ {
			cl.Run(100 * time.Millisecond)
		}
		require.True(t, finished, "the sync never ended")
		if tc.wantErr {
			require.True(t, client.IsForbidden(got), "%d requeues: retried, got %v", tc.requeues, got)
		} else {
			require.NoError(t, got, "%d requeues: dropped", tc.requeues)
		}
	}
}

// TestFailedStatusWriteEndsTheSync: as in the real syncDeployment, an
// error writing the Deployment's status ends the sync with that error
// (which requeues the key). Here the controller's informer holds a paused
// Deployment the API server does not have, so the write of its Paused
// condition is refused with NotFound.
func TestFailedStatusWriteEndsTheSync(t *testing.T) {
	c, cl := idleController(t, "system:kube-controller-manager")
	d := storedDeployment(c, "web")
	d.Spec.Paused = true
	d.Spec.ProgressDeadlineSeconds = model.Ptr(int32(600))
	var got error
	finished := false
	c.processKey(cache.MetaNamespaceKeyFunc(d), func(err error) { got, finished = err, true })
	for i := 0; i < 100 && !finished; i++ {
		cl.Run(100 * time.Millisecond)
	}
	require.True(t, finished, "the sync never ended")
	require.True(t, client.IsNotFound(got), "got %v", got)
}

// syncOnce runs one sync of key on an idle controller and returns its
// error.
func syncOnce(t *testing.T, c *Controller, cl *apitest.Cluster, key string) error {
	var got error
	finished := false
	c.processKey(key, func(err error) { got, finished = err, true })
	for i := 0; i < 100 && !finished; i++ {
		cl.Run(100 * time.Millisecond)
	}
	require.True(t, finished, "the sync never ended")
	return got
}

// phantomReplicaSet puts in the idle controller's informer a ReplicaSet of
// d (its template, with image) of the given size that the API server does
// not have: every write to it is refused with NotFound.
func phantomReplicaSet(c *Controller, d *model.Deployment, image string, replicas int32) {
	rs := ownedBy(d, "1")
	d.Spec.Template.DeepCopyInto(&rs.Spec.Template)
	rs.Spec.Template.Spec.Containers[0].Image = image
	rs.Spec.Replicas = model.Ptr(replicas)
	rs.Annotations = map[string]string{RevisionAnnotation: "1",
		DesiredReplicasAnnotation: strconv.Itoa(int(desiredOf(d))), MaxReplicasAnnotation: strconv.Itoa(int(desiredOf(d) + maxSurge(d)))}
	c.ctx.ReplicaSets.GetStore().Add(rs)
}

// storedInBoth creates d through the API and puts the stored object in the
// idle controller's informer.
func storedInBoth(t *testing.T, c *Controller, cl *apitest.Cluster, d *model.Deployment) *model.Deployment {
	obj, err := cl.Create(d)
	require.NoError(t, err)
	d = obj.(*model.Deployment)
	c.ctx.Deployments.GetStore().Add(d)
	return d
}

// TestFailedScaleEndsTheSync: as in the real sync (scale returns its
// error before the status is synced), a refused resize ends the sync of a
// paused Deployment with that error. Scaling its one (old) ReplicaSet up
// to the Deployment's replicas is refused with NotFound.
func TestFailedScaleEndsTheSync(t *testing.T) {
	c, cl := idleController(t, "system:kube-controller-manager")
	d := newDeployment("web", 3, "web:1")
	d.Spec.Paused = true
	d = storedInBoth(t, c, cl, d)
	phantomReplicaSet(c, d, "web:0", 2)
	got := syncOnce(t, c, cl, cache.MetaNamespaceKeyFunc(d))
	require.True(t, client.IsNotFound(got), "got %v", got)
}

// TestFailedScaleUpEndsTheRollout: as in the real rolloutRolling
// (reconcileNewReplicaSet's error is returned), a refused scale-up of the
// new ReplicaSet ends the sync with that error, without going on to the
// old ReplicaSets.
func TestFailedScaleUpEndsTheRollout(t *testing.T) {
	c, cl := idleController(t, "system:kube-controller-manager")
	d := storedInBoth(t, c, cl, newDeployment("web", 3, "web:1"))
	phantomReplicaSet(c, d, "web:1", 1)
	got := syncOnce(t, c, cl, cache.MetaNamespaceKeyFunc(d))
	require.True(t, client.IsNotFound(got), "got %v", got)
}
