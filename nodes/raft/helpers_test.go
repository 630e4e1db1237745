package raft

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// fixedRand always draws the same offset, so election timeouts are exact.
type fixedRand int

func (r fixedRand) IntN(n int) int { return int(r) % n }

// newTestNode builds a lone node for unit tests of single transitions.
func newTestNode(t *testing.T, id uint64, peers []uint64, ps PersistentState, mutate func(*Config)) *Node {
	t.Helper()
	cfg := Config{ID: id, Peers: peers, ElectionTick: 10, HeartbeatTick: 1, Rand: fixedRand(0)}
	if mutate != nil {
		mutate(&cfg)
	}
	n, err := New(cfg, ps)
	require.NoError(t, err)
	return n
}

// drain runs Ready/Advance until the node is quiet and returns the messages.
func drain(n *Node) []Message {
	var out []Message
	for n.HasReady() {
		rd := n.Ready()
		out = append(out, rd.Messages...)
		n.Advance(rd)
	}
	return out
}

// logOfTerms builds a log with one entry per term, indexes from 1.
func logOfTerms(terms ...uint64) []Entry {
	ents := make([]Entry, len(terms))
	for i, t := range terms {
		ents[i] = Entry{Index: uint64(i + 1), Term: t}
	}
	return ents
}

func logTerms(n *Node) []uint64 {
	var out []uint64
	for _, e := range n.log.ents {
		out = append(out, e.Term)
	}
	return out
}

func ids(n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

func msgsOfType(ms []Message, t MessageType) []Message {
	var out []Message
	for _, m := range ms {
		if m.Type == t {
			out = append(out, m)
		}
	}
	return out
}

// noPreVote turns off the thesis extensions so tests can check the plain
// paper algorithm.
func noPreVote(c *Config) { c.PreVote, c.CheckQuorum = false, false }

// setLog replaces a peer's disk with the given state and restarts it.
func (nw *network) setLog(id uint64, ps PersistentState) {
	nw.crash(id)
	p := nw.peer(id)
	p.store = memStorage{hs: ps.HardState, snap: ps.Snapshot, ents: ps.Entries}
	nw.restart(id)
}
