package apitest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiserver"
)

func TestCreateThenGetAndList(t *testing.T) {
	c := New(1, 3, 2, nil)
	c.Settle()
	lease := &model.Lease{ObjectMeta: model.ObjectMeta{Name: "x", Namespace: "default"}}
	_, err := c.Create(lease)
	require.NoError(t, err)
	got, err := c.Get(model.ResourceLeasesName, "default", "x")
	require.NoError(t, err)
	require.Equal(t, "x", got.GetObjectMeta().Name)
	all, err := c.List(model.ResourceLeasesName)
	require.NoError(t, err)
	require.Len(t, all, 1)
}

// TestCreateCustomObject: Create finds a custom object's resource among
// the kinds the API servers serve, and refuses a kind they do not serve
// with an error (model.ResourceOf would panic on it).
func TestCreateCustomObject(t *testing.T) {
	widgets := model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Namespaced: true}
	gadgets := model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Gadget", Plural: "gadgets", Namespaced: true}
	reg := model.MustNewRegistry(widgets)
	c := New(1, 1, 1, func(cfg *apiserver.Config) { cfg.Resources = reg })
	c.Settle()
	_, err := c.Create(model.NewCustomObject(widgets, "default", "w"))
	require.NoError(t, err)
	got, err := c.Get("widgets", "default", "w")
	require.NoError(t, err)
	require.Equal(t, "Widget", got.Kind())
	_, err = c.Create(model.NewCustomObject(gadgets, "default", "g"))
	require.ErrorContains(t, err, `no resource of kind "Gadget"`)
}
