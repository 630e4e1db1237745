package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model/rbac"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// TestCustomKindUnderPolicy: RBAC matches a custom kind by its API group
// and plural, as any resource (k8s.io/kubernetes
// plugin/pkg/auth/authorizer/rbac/rbac.go, RuleAllows with APIGroupMatches
// and ResourceMatches): a service account granted widgets in example.com
// creates one; one granted widgets in the core group ("") is refused with a
// 403 that names the group.
func TestCustomKindUnderPolicy(t *testing.T) {
	good, wrong := rbac.ServiceAccount("default", "good"), rbac.ServiceAccount("default", "wrong")
	pol := rbac.Default().
		Allow(good, "default", rbac.Rule{Verbs: []string{"create", "get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}).
		Allow(wrong, "default", rbac.Rule{Verbs: []string{"create", "get"}, APIGroups: []string{""}, Resources: []string{"widgets"}})
	tw := customWorld(t, 7, 1, func(c *Config) { c.Policy = pol })

	req := widgetReq(apiwire.VerbCreate, "", newWidget(t, "w1", 1))
	req.User = rbac.ServiceAccountUser("default", "good")
	tw.must(0, req)

	req = widgetReq(apiwire.VerbCreate, "", newWidget(t, "w2", 1))
	req.User = rbac.ServiceAccountUser("default", "wrong")
	resp := tw.do(0, req)
	require.Equal(t, 403, resp.Status.Code)
	assert.Contains(t, resp.Status.Message, `cannot create resource "widgets" in API group "example.com" in the namespace "default"`)
}
