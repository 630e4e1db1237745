package catalogue

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestMigrateUnderAPICompletes: in etcd-migrate-under-api the operator
// moves every member to a fresh host and rolls the three API servers'
// --etcd-servers once a member, each serving again before the next, all
// within the faults window, so that the run's settle window judges the
// API layer on the new members alone.
func TestMigrateUnderAPICompletes(t *testing.T) {
	t.Parallel()
	for _, members := range []int{3, 5} {
		p, err := scenarios.Prepare(scenarios.Options{Scenario: "etcd-migrate-under-api", Members: members, Seed: 1})
		require.NoError(t, err)
		var ready int
		var last sim.Time
		var voters string
		p.World.Subscribe(func(e *sim.Event) {
			switch d := e.Data.(type) {
			case *etcdtrace.RecoveryStep:
				if d.Step == "apiserver-ready" {
					ready, last = ready+1, e.At
				}
			case *etcdtrace.Membership:
				voters = d.Voters
			}
		})
		r, err := p.Run()
		require.NoError(t, err)
		require.True(t, r.OK, "%v", r.Failed())
		var fresh []string
		for i := members + 1; i <= 2*members; i++ {
			fresh = append(fresh, fmt.Sprintf("etcd-%d", i))
		}
		assert.Equal(t, strings.Join(fresh, ","), voters, "%d members: the voters at the end", members)
		assert.Equal(t, 3*members, ready, "%d members: API servers rolled", members)
		assert.Less(t, last, sim.Time(migrateWindow), "%d members: the roll ends within the faults window", members)
	}
}
