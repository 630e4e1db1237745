package raft

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/ablation"
)

// TestPropertySafety explores random interleavings of ticks, deliveries in
// any order, drops, duplicates, crashes that lose unpersisted state,
// restarts, proposals, compactions, reads and transfers, and checks Raft's
// safety properties (paper Figure 3: election safety, log matching, leader
// completeness, state machine safety) after every step; at the end the
// healed cluster must converge. One subtest per cluster size and
// PreVote/CheckQuorum combination, each with rapid's default number of runs
// (raise it with -rapid.checks for a deeper search).
func TestPropertySafety(t *testing.T) {
	for _, size := range []int{1, 3, 5} {
		for _, opts := range [][2]bool{{true, true}, {false, false}, {true, false}, {false, true}} {
			name := fmt.Sprintf("size=%d/PreVote=%v/CheckQuorum=%v", size, opts[0], opts[1])
			t.Run(name, func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					runRandomCluster(t, size, opts[0], opts[1], 0, 2000)
				})
			})
		}
	}
}

// runRandomCluster drives a random cluster for steps actions and reports the
// first safety violation through t.
func runRandomCluster(t *rapid.T, size int, preVote, checkQuorum bool, abl ablation.Set, steps int) {
	maxEnts := rapid.IntRange(1, 4).Draw(t, "maxEntriesPerMsg")
	maxInflight := rapid.IntRange(1, 4).Draw(t, "maxInflight")
	seed := rapid.Uint64().Draw(t, "seed")
	nw := newNetwork(t, size, seed, func(c *Config) {
		c.ElectionTick = 4
		c.PreVote, c.CheckQuorum = preVote, checkQuorum
		c.MaxEntriesPerMsg, c.MaxInflightMsgs = maxEnts, maxInflight
		c.Ablations = abl
	})
	proposals := 0
	peerGen := rapid.Uint64Range(1, uint64(size))
	for step := 0; step < steps; step++ {
		id := peerGen.Draw(t, "peer")
		p := nw.peer(id)
		switch pickAction(rapid.IntRange(0, 99).Draw(t, "action")) {
		case actTick:
			if p.node != nil {
				p.node.Tick()
			}
		case actDeliver: // any in-flight message, in any order
			if len(nw.msgs) > 0 {
				k := rapid.IntRange(0, len(nw.msgs)-1).Draw(t, "msg")
				m := nw.msgs[k]
				nw.msgs = append(nw.msgs[:k], nw.msgs[k+1:]...)
				nw.deliver(m)
			}
		case actDuplicate: // deliver a copy, keep the original in flight
			if len(nw.msgs) > 0 {
				nw.deliver(nw.msgs[rapid.IntRange(0, len(nw.msgs)-1).Draw(t, "msg")])
			}
		case actDrop:
			if len(nw.msgs) > 0 {
				k := rapid.IntRange(0, len(nw.msgs)-1).Draw(t, "msg")
				nw.msgs = append(nw.msgs[:k], nw.msgs[k+1:]...)
			}
		case actReady: // start or finish one Ready (its fsync is in flight in between)
			if !nw.finishReady(id) {
				nw.startReady(id)
			}
		case actPropose:
			if p.node != nil {
				proposals++
				_ = p.node.Propose([]byte(fmt.Sprintf("v%d", proposals)))
			}
		case actCrash: // crash (losing unpersisted state) or restart
			if p.node != nil {
				nw.crash(id)
			} else {
				nw.restart(id)
			}
		case actCompact: // snapshot at the applied index
			if p.node != nil && p.node.log.applied > p.node.log.snapIndex {
				idx := p.node.log.applied
				if err := p.node.Compact(idx, []byte(fmt.Sprintf("snap-%d", idx))); err != nil {
					t.Fatalf("Compact: %v", err)
				}
				p.store.compact(p.node.Snapshot())
			}
		case actRound: // every live node ticks, then all messages are delivered
			for _, q := range nw.peers {
				if q.node != nil {
					q.node.Tick()
				}
			}
			msgs := nw.msgs
			nw.msgs = nil
			for _, m := range msgs {
				nw.deliver(m)
			}
			for _, q := range nw.peers {
				nw.process(q.id)
			}
		case actRead:
			if p.node != nil {
				p.node.ReadIndex([]byte{byte(step)})
			}
		case actTransfer:
			if p.node != nil {
				p.node.TransferLeader(peerGen.Draw(t, "transferee"))
			}
		}
		if err := nw.check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if len(nw.stepErrs) > 0 {
			t.Fatalf("step %d: Step error: %v", step, nw.stepErrs[0])
		}
	}
	// Heal: restart everyone and run rounds; the cluster must converge on
	// one leader and agree on everything committed (liveness smoke check).
	for _, q := range nw.peers {
		nw.restart(q.id)
	}
	for round := 0; round < 200 && !nw.converged(); round++ {
		nw.tick(1)
	}
	if err := nw.check(); err != nil {
		t.Fatalf("after heal: %v", err)
	}
	if !nw.converged() {
		t.Fatalf("cluster did not converge after healing: %v", nw.describe())
	}
}

type action uint8

const (
	actDeliver action = iota
	actReady
	actRound
	actPropose
	actTick
	actDrop
	actDuplicate
	actCompact
	actCrash
	actRead
	actTransfer
)

// actionWeights are cumulative thresholds over a draw in [0, 100). rapid
// favours small draws, so the most useful actions come first.
var actionWeights = [...]int{30, 48, 62, 72, 80, 84, 87, 91, 95, 98, 100}

func pickAction(d int) action {
	for a, w := range actionWeights {
		if d < w {
			return action(a)
		}
	}
	return actTransfer
}

// converged reports whether there is a leader that every node follows and
// all nodes have the same commit index, equal to the leader's last index.
func (nw *network) converged() bool {
	lead := nw.leader()
	if lead == None {
		return false
	}
	ln := nw.node(lead)
	for _, p := range nw.peers {
		n := p.node
		if n == nil || n.lead != lead || n.term != ln.term || n.log.committed != ln.log.lastIndex() {
			return false
		}
	}
	return true
}

func (nw *network) describe() string {
	s := ""
	for _, p := range nw.peers {
		if p.node == nil {
			s += fmt.Sprintf("[%d down] ", p.id)
			continue
		}
		st := p.node.Status()
		s += fmt.Sprintf("[%d %v t%d lead%d commit%d last%d] ", st.ID, st.Role, st.Term, st.Lead, st.Commit, st.LastIndex)
	}
	return s
}
