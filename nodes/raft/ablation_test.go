package raft

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
func runFigure8(t *testing.T, unsafe Ablations) []string {
	nw := newNetwork(t, 5, 8, func(c *Config) {
		noPreVote(c)
		c.MaxEntriesPerMsg = 1
		c.Unsafe = unsafe
	})
	nw.campaign(1)
	require.Equal(t, Leader, nw.node(1).role)

	// (a)
	for _, id := range []uint64{3, 4, 5} {
		nw.cutLink(1, id)
	}
	require.NoError(t, nw.propose(1, "x"))
	require.Equal(t, uint64(2), nw.node(2).log.lastIndex())
	nw.crash(1)
	nw.heal()

	// (b)
	nw.drop = func(m Message) bool { return m.From == 5 && m.Type == MsgApp }
	nw.campaign(5)
	require.Equal(t, Leader, nw.node(5).role)
	nw.crash(5)
	nw.heal()

	// (c)
	nw.restart(1)
	nw.drop = func(m Message) bool {
		// Lose S1's current-term entry 3, but only once the recipient can
		// accept it (its probe must get through to be rejected).
		return m.From == 1 && m.Type == MsgApp && len(m.Entries) > 0 && m.Entries[0].Index == 3 &&
			nw.node(m.To) != nil && nw.node(m.To).log.lastIndex() >= 2
	}
	for i := 0; i < 3 && nw.node(1).role != Leader; i++ {
		nw.campaign(1) // S3 and S4 voted for S5 in its term: try the next
	}
	require.Equal(t, Leader, nw.node(1).role)
	require.Equal(t, uint64(2), nw.node(3).log.lastIndex(), "old entry re-replicated")
	nw.crash(1)
	nw.heal()

	// (d)
	nw.restart(5)
	for i := 0; i < 3 && nw.node(5).role != Leader; i++ {
		nw.campaign(5)
	}
	require.Equal(t, Leader, nw.node(5).role)
	nw.tick(1)
	require.Empty(t, nw.stepErrs)
	return nw.chk.all
}

// The CommitOldTerm ablation must be caught by the safety checks: the
// Figure 8 scenario violates leader completeness and state machine safety
// with it, and is safe without it.
func TestAblationCommitOldTermFigure8(t *testing.T) {
	assert.Empty(t, runFigure8(t, Ablations{}), "correct Raft is safe in Figure 8")

	violations := runFigure8(t, Ablations{CommitOldTerm: true})
	require.NotEmpty(t, violations, "the ablation must be caught")
	joined := strings.Join(violations, "\n")
	assert.Contains(t, joined, "leader completeness")
	assert.Contains(t, joined, "state machine safety")
}
