package catalogue_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// TestDisasterRecoveryExpectations: restoring the newest backup loses the
// revisions committed after it, among them acknowledged API writes, and
// the cluster converges after the procedure, later than the operator's
// start (the checks judge the rest: the restored state, time travel,
// convergence).
func TestDisasterRecoveryExpectations(t *testing.T) {
	t.Parallel()
	for _, members := range []int{3, 5} {
		res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-disaster-recovery", Members: members, Seed: 1})
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Failed())
		m := res.Metrics
		require.Positive(t, m["rpo_revisions_lost"])
		require.LessOrEqual(t, m["rpo_writes_lost"], m["rpo_revisions_lost"], "each acknowledged write is a revision")
		require.Positive(t, m["rto_procedure_s"])
		require.Greater(t, m["rto_s"], m["rto_procedure_s"], "the operator reacted after the loss")
	}
}

// TestAmnesiaExpectations: the expectations etcd-amnesia declares. With no
// backup the cluster forgets every key and every revision; the kubelets
// keep running their pods through the outage and stop every one of them
// once the empty state says they are gone; the re-applied workload
// converges.
func TestAmnesiaExpectations(t *testing.T) {
	t.Parallel()
	for _, members := range []int{3, 5} {
		res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-amnesia", Members: members, Seed: 1})
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Failed())
		m := res.Metrics
		require.Positive(t, m["rpo_keys_lost"])
		require.Positive(t, m["rpo_revisions_lost"])
		require.Positive(t, m["pods_kept_through_outage"])
		require.Equal(t, m["pods_kept_through_outage"], m["pods_stopped_after_restore"], "every pod the empty state does not know is stopped")
		require.Positive(t, m["rto_s"])
	}
}
