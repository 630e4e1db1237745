package raft

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
)

// runFigure8 plays the Raft paper's Figure 8 (§5.4.2) on five nodes and
// returns every safety violation the checker saw:
//
//	(a) S1 leads and replicates entry 2 ("x") to S2 only, then crashes;
//	(b) S5 is elected by S3, S4 and itself and appends its own entry 2,
//	    which reaches nobody before it crashes;
//	(c) S1 restarts, is elected and replicates the old entry 2 to S3, but
//	    its current-term entry 3 is lost; S1 then crashes;
//	(d) S5 restarts, is elected and overwrites entry 2 everywhere.
//
// Correct Raft never considers entry 2 committed in (c). With the
// CommitOldTerm ablation S1 commits and applies it by counting replicas, and
// (d) then overwrites a committed entry.
//
// With the SkipEmptyEntry ablation a new leader appends no entry of its
// own: the indexes shift down by one (entry "x" is 1), S5's entry of (b) is
// a proposal ("y"), and S1 has no current-term entry in (c); what it must
// not get through is the append that tells S3 the commit index, as in the
// paper, where S1 crashes before S3 learns it.
func runFigure8(t *testing.T, abl ablation.Set) []string {
	nw := newNetwork(t, 5, 8, func(c *Config) {
		noPreVote(c)
		c.MaxEntriesPerMsg = 1
		c.Ablations = abl
	})
	nw.campaign(1)
	require.Equal(t, Leader, nw.node(1).role)
	if abl.Has(ablation.SkipEmptyEntry) {
		// On an empty log the probes match nothing new; a heartbeat round
		// moves the followers out of probing.
		nw.tick(1)
	}
	x := nw.node(1).log.lastIndex() + 1 // the index Figure 8 fights over

	// (a)
	for _, id := range []uint64{3, 4, 5} {
		nw.cutLink(1, id)
	}
	require.NoError(t, nw.propose(1, "x"))
	require.Equal(t, x, nw.node(2).log.lastIndex())
	nw.crash(1)
	nw.heal()

	// (b)
	nw.drop = func(m Message) bool { return m.From == 5 && m.Type == MsgApp }
	nw.campaign(5)
	require.Equal(t, Leader, nw.node(5).role)
	if abl.Has(ablation.SkipEmptyEntry) {
		require.NoError(t, nw.propose(5, "y"))
	}
	require.Equal(t, x, nw.node(5).log.lastIndex())
	nw.crash(5)
	nw.heal()

	// (c)
	nw.restart(1)
	nw.drop = func(m Message) bool {
		if m.From != 1 || m.Type != MsgApp || nw.node(m.To) == nil || nw.node(m.To).log.lastIndex() < x {
			return false
		}
		// Lose S1's current-term entry x+1, but only once the recipient
		// can accept it (its probe must get through to be rejected); and
		// lose any append that would tell a holder of x that x is
		// committed.
		return len(m.Entries) > 0 && m.Entries[0].Index == x+1 || m.Commit >= x
	}
	for i := 0; i < 3 && nw.node(1).role != Leader; i++ {
		nw.campaign(1) // S3 and S4 voted for S5 in its term: try the next
	}
	require.Equal(t, Leader, nw.node(1).role)
	require.Equal(t, x, nw.node(3).log.lastIndex(), "old entry re-replicated")
	nw.crash(1)
	nw.heal()

	// (d)
	nw.restart(5)
	for i := 0; i < 3 && nw.node(5).role != Leader; i++ {
		nw.campaign(5)
	}
	require.Equal(t, Leader, nw.node(5).role)
	if abl.Has(ablation.SkipEmptyEntry) && !abl.Has(ablation.CommitOldTerm) {
		// Nothing of S5's term yet: a proposal commits its log.
		require.NoError(t, nw.propose(5, "z"))
	}
	nw.tick(1)
	require.Empty(t, nw.stepErrs)
	return nw.chk.all
}

// The CommitOldTerm ablation must be caught by the safety checks: the
// Figure 8 scenario violates leader completeness and state machine safety
// with it, and is safe without it.
func TestAblationCommitOldTermFigure8(t *testing.T) {
	assert.Empty(t, runFigure8(t, ablation.Set{}), "correct Raft is safe in Figure 8")

	violations := runFigure8(t, ablation.Of(ablation.CommitOldTerm))
	require.NotEmpty(t, violations, "the ablation must be caught")
	joined := strings.Join(violations, "\n")
	assert.Contains(t, joined, "leader completeness")
	assert.Contains(t, joined, "state machine safety")
}

// SkipEmptyEntry alone is not a safety bug: without the empty entry a new
// leader still commits older entries only once an entry of its own term
// reaches a quorum, so Figure 8 stays safe. The current-term rule alone
// guards safety; the empty entry only makes older entries commit promptly.
func TestAblationSkipEmptyEntryAloneIsSafe(t *testing.T) {
	assert.Empty(t, runFigure8(t, ablation.Of(ablation.SkipEmptyEntry)), "the current-term rule alone keeps Figure 8 safe")

	violations := runFigure8(t, ablation.Of(ablation.SkipEmptyEntry, ablation.CommitOldTerm))
	require.NotEmpty(t, violations, "both switches together are Figure 8's bug")
	assert.Contains(t, strings.Join(violations, "\n"), "state machine safety")
}

// TestLeaseReadsAblation: an isolated leader cannot answer a read index
// (no quorum confirms it still leads), while the others elect a new leader
// and commit; with raft-lease-reads it answers at once from its stale
// commit index, below what the new leader has committed.
func TestLeaseReadsAblation(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		nw := newNetwork(t, 3, 1, func(c *Config) { c.Ablations = ablation.When(ablate, ablation.LeaseReads) })
		nw.campaign(1)
		require.NoError(t, nw.propose(1, "a"))
		nw.stabilize()
		stale := nw.node(1).log.committed
		nw.isolate(1)
		nw.campaign(2)
		require.Equal(t, Leader, nw.node(2).role)
		require.NoError(t, nw.propose(2, "b"))
		nw.stabilize()
		require.Greater(t, nw.node(2).log.committed, stale)
		require.Equal(t, Leader, nw.node(1).role, "the isolated leader still believes it leads")
		nw.node(1).ReadIndex([]byte("r"))
		nw.stabilize()
		if ablate {
			assert.Equal(t, []ReadState{{Index: stale, Ctx: []byte("r")}}, nw.peer(1).reads, "ablated: a stale read index")
		} else {
			assert.Empty(t, nw.peer(1).reads, "no quorum, no answer")
		}
	}
}
