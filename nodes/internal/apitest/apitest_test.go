package apitest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
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
