package catalogue_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// replaceSeeds is how many seeds the etcd-replace-member tests sweep: 50
// with -deep (the catalogue's bound for catching an ablation), a few by
// default.
func replaceSeeds() uint64 {
	if *deepFlag {
		return 50
	}
	return 3
}

// TestReplaceMemberCompletes: the operator's replacement goes through with 3
// and 5 members (remove, add as learner, promote: three configurations)
// although the members that hold the latest writes are down for a while
// after the wipe, and every check passes, so that etcd-replace-member
// judges a membership that really changed. Seeds 1 to 50 with -deep.
func TestReplaceMemberCompletes(t *testing.T) {
	t.Parallel()
	for _, members := range []int{3, 5} {
		for seed := uint64(1); seed <= replaceSeeds(); seed++ {
			r, err := scenarios.Run(scenarios.Options{Scenario: "etcd-replace-member", Members: members, Seed: seed})
			require.NoError(t, err)
			require.True(t, r.OK, "%d members, seed %d: %v", members, seed, r.Failed())
			var detail string
			for _, c := range r.Checks {
				if c.Name == "membership-safety" {
					detail = c.Detail
				}
			}
			assert.Contains(t, detail, "3 configurations", "%d members, seed %d", members, seed)
		}
	}
}

// TestRejoinWipedMemberCaught: when the operator restarts the wiped member
// under its old ID (rejoin-wiped-member), it forms a quorum with the
// members that lack the writes committed while they were cut off (Raft
// §5.4: an election needs votes from a majority that stores every
// committed entry; the amnesiac member's vote breaks that). Raft safety
// (leader completeness, state machine safety), linearizability (the
// acknowledged writes vanish for clients) and membership safety (the
// amnesiac voter) must each fail at some seed within 50, with 3 and with
// 5 members. By default it runs 3 members only and stops at the first
// seed where all three have failed (an ablated run is slow: after the
// breach, members whose committed logs conflict with the leader's reject
// its appends in a loop); with -deep it runs all 50 seeds at both member
// counts and prints, per check, how many of them caught the ablation.
func TestRejoinWipedMemberCaught(t *testing.T) {
	t.Parallel()
	want := []string{"raft-safety", "linearizability", "membership-safety"}
	counts := []int{3}
	if *deepFlag {
		counts = []int{3, 5}
	}
	for _, members := range counts {
		first := map[string]uint64{}
		count := map[string]int{}
		var ran uint64
		for seed := uint64(1); seed <= 50; seed++ {
			if !*deepFlag && len(first) == len(want) {
				break
			}
			r, err := runAblated("etcd-replace-member", members, seed, "rejoin-wiped-member")
			require.NoError(t, err)
			ran = seed
			for _, c := range r.Failed() {
				for _, w := range want {
					if c.Name != w {
						continue
					}
					count[w]++
					if first[w] == 0 {
						first[w] = seed
					}
				}
			}
		}
		for _, w := range want {
			require.NotZero(t, first[w], "%s did not catch rejoin-wiped-member on etcd-replace-member with %d members within 50 seeds", w, members)
			fmt.Printf("rejoin-wiped-member, %d members: %s first fails at seed %d (%d of seeds 1-%d)\n", members, w, first[w], count[w], ran)
		}
	}
}
