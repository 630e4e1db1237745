package checks

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSplitRegistryKey: built-in keys are /registry/<resource>/..., a
// custom kind's /registry/<group>/<plural>/... (k8s.io/apiserver
// pkg/server/options/etcd.go, SimpleStorageFactory.ResourcePrefix), and
// both split into the plural and the API key the trace uses.
func TestSplitRegistryKey(t *testing.T) {
	for _, tc := range []struct{ key, res, apiKey string }{
		{"/registry/pods/default/web-1", "pods", "default/web-1"},
		{"/registry/nodes/n1", "nodes", "n1"},
		{"/registry/example.com/widgets/default/w1", "widgets", "default/w1"},
		{"/registry/example.com/gadgets/g1", "gadgets", "g1"},
	} {
		res, key, ok := splitRegistryKey(tc.key)
		require.True(t, ok, tc.key)
		require.Equal(t, tc.res, res, tc.key)
		require.Equal(t, tc.apiKey, key, tc.key)
	}
	for _, bad := range []string{"/registry/pods", "/other/pods/a", "/registry/example.com/widgets"} {
		_, _, ok := splitRegistryKey(bad)
		require.False(t, ok, bad)
	}
}
