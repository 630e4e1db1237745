package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplaceMemberCompletes: the operator's replacement goes through with 3
// and 5 members (remove, add as learner, promote: three configurations),
// so that etcd-replace-member judges a membership that really changed.
func TestReplaceMemberCompletes(t *testing.T) {
	for _, members := range []int{3, 5} {
		r, err := Run(Options{Scenario: "etcd-replace-member", Members: members, Seed: 1})
		require.NoError(t, err)
		require.True(t, r.OK, "%v", r.Failed())
		var detail string
		for _, c := range r.Checks {
			if c.Name == "membership-safety" {
				detail = c.Detail
			}
		}
		assert.Contains(t, detail, "3 configurations", "%d members", members)
	}
}
