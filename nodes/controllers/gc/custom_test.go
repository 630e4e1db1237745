package gc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
)

// widgets is a custom kind the collector's cluster serves; gadgets one it
// does not.
var (
	widgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true}
	gadgets = model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Gadget", Plural: "gadgets", Namespaced: true}
)

func newDeployment(name string, owner model.Object) *model.Deployment {
	labels := map[string]string{"app": name}
	d := &model.Deployment{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns},
		Spec: model.DeploymentSpec{Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec: model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}}}}}
	d.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(owner, owner.Kind())}
	return d
}

// gone reports whether resource ns/name is not stored (quorum read).
func (e *env) gone(resource, name string) bool {
	e.t.Helper()
	_, err := e.Get(resource, ns, name)
	if client.IsNotFound(err) {
		return true
	}
	require.NoError(e.t, err)
	return false
}

// TestCollectsDependentsOfCustomOwners: an operator's Deployment,
// controlled by its custom object, is collected once that object is
// deleted, and through it its ReplicaSet and pod (background cascade);
// a Deployment whose Widget lives, or whose owner is of a kind the
// cluster does not serve (or of another version of Widget), stays.
func TestCollectsDependentsOfCustomOwners(t *testing.T) {
	e := newEnvServing(t, 7, false, model.MustNewRegistry(widgets), nil)
	doomed := e.mustCreate(model.NewCustomObject(widgets, ns, "doomed"))
	kept := e.mustCreate(model.NewCustomObject(widgets, ns, "kept"))
	d := e.mustCreate(newDeployment("doomed", doomed))
	rs := newRS("doomed-1")
	rs.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(d, model.KindDeployment)}
	e.mustCreate(newPod("doomed-1-x", e.mustCreate(rs)))
	e.mustCreate(newDeployment("kept", kept))
	// Owners of kinds the cluster does not serve count as present: never
	// collected, though no such owner exists.
	gadget := model.NewCustomObject(gadgets, ns, "g")
	gadget.UID = "uid-of-a-gadget"
	e.mustCreate(newDeployment("of-gadget", gadget))
	other := model.NewCustomObject(widgets, ns, "v2")
	other.APIVersion, other.UID = "example.com/v2", "uid-of-a-v2-widget"
	e.mustCreate(newDeployment("of-widget-v2", other))
	e.Run(RescanPeriod + 5*time.Second)
	for _, n := range []string{"doomed", "kept", "of-gadget", "of-widget-v2"} {
		require.False(t, e.gone(model.ResourceDeploymentsName, n), "%s: its owner is there, or not of a served kind", n)
	}

	e.del("widgets", "doomed")
	e.Run(5 * time.Second)
	cases := []struct {
		resource, name string
		gone           bool
	}{
		{model.ResourceDeploymentsName, "doomed", true},
		{model.ResourceReplicaSetsName, "doomed-1", true},
		{model.ResourcePodsName, "doomed-1-x", true},
		{model.ResourceDeploymentsName, "kept", false},
		{model.ResourceDeploymentsName, "of-gadget", false},
		{model.ResourceDeploymentsName, "of-widget-v2", false},
	}
	for _, tc := range cases {
		require.Equal(t, tc.gone, e.gone(tc.resource, tc.name), "%s %s", tc.resource, tc.name)
	}
}

// TestCollectsCustomDependents: a custom object is a dependent too: one
// whose owning ReplicaSet is deleted is collected, found by the custom
// kind's informer.
func TestCollectsCustomDependents(t *testing.T) {
	e := newEnvServing(t, 8, false, model.MustNewRegistry(widgets), nil)
	rs := e.mustCreate(newRS("a"))
	w := model.NewCustomObject(widgets, ns, "w")
	w.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(rs, model.KindReplicaSet)}
	e.mustCreate(w)
	e.Run(3 * time.Second)
	require.False(t, e.gone("widgets", "w"))
	e.del(model.ResourceReplicaSetsName, "a")
	e.Run(5 * time.Second)
	require.True(t, e.gone("widgets", "w"))
}

// TestCustomOwnerGoneBeforeStart: a Deployment whose Widget was deleted
// before the collector started is found by its first scan, through the
// custom kind's informer (which lacks the owner), and confirmed gone with
// a quorum GET of the widgets resource.
func TestCustomOwnerGoneBeforeStart(t *testing.T) {
	var ghost model.Object
	e := newEnvServing(t, 9, false, model.MustNewRegistry(widgets), func(e *env) {
		ghost = e.mustCreate(model.NewCustomObject(widgets, ns, "ghost"))
		e.mustCreate(newDeployment("haunted", ghost))
		e.del("widgets", "ghost")
	})
	e.Run(2 * time.Second)
	require.True(t, e.gone(model.ResourceDeploymentsName, "haunted"))
	require.True(t, e.gc.absent[ghost.GetObjectMeta().UID])
}
