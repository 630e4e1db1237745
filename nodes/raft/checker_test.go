package raft

import (
	"bytes"
	"fmt"
)

// record is what the cluster has agreed on at one log index.
type record struct {
	set        bool
	term       uint64
	data       []byte
	commitTerm uint64 // lowest term of a node observed holding it committed
}

// checker verifies Raft's safety properties (paper Figure 3) across the
// whole history of a test network:
//   - election safety: at most one leader per term;
//   - log matching: logs that agree on (index, term) agree on every entry
//     up to that index;
//   - leader completeness: an entry committed in term t is in the log of
//     every leader of a later term;
//   - state machine safety: every node applies the same entry at an index.
//
// It also checks that equal commit indexes give equal log hashes.
type checker struct {
	leaders   []uint64 // by term
	committed []record // by index-1: entries seen committed on some node
	applied   []record // by index-1: entries seen applied on some node
	hashes    []uint64 // by commit index: LogHash seen at that commit
	err       error    // the first violation
	all       []string // every violation, in order
}

func newChecker() *checker { return &checker{} }

func (c *checker) fail(format string, args ...any) {
	err := fmt.Errorf(format, args...)
	if c.err == nil {
		c.err = err
	}
	c.all = append(c.all, err.Error())
}

func grow[T any](s []T, n uint64) []T {
	for uint64(len(s)) < n {
		var zero T
		s = append(s, zero)
	}
	return s
}

// apply records that node id applied e, checking state machine safety.
func (c *checker) apply(id uint64, e *Entry) {
	c.applied = grow(c.applied, e.Index)
	r := &c.applied[e.Index-1]
	if !r.set {
		*r = record{set: true, term: e.Term, data: e.Data}
		return
	}
	if r.term != e.Term || !bytes.Equal(r.data, e.Data) {
		c.fail("state machine safety: node %d applied (term %d, %q) at index %d, others applied (term %d, %q)",
			id, e.Term, e.Data, e.Index, r.term, r.data)
	}
}

// installSnapshot checks a snapshot restored on p against what was applied.
func (c *checker) installSnapshot(p *testPeer, s *Snapshot) {
	if s.Index == 0 || uint64(len(c.applied)) < s.Index {
		return
	}
	if r := c.applied[s.Index-1]; r.set && r.term != s.Term {
		c.fail("state machine safety: node %d restores snapshot (index %d, term %d) but term %d was applied there",
			p.id, s.Index, s.Term, r.term)
	}
}

// check inspects every live node and returns the first violation ever seen.
func (c *checker) check(nw *network) error {
	var live []*Node
	for _, p := range nw.peers {
		if p.node != nil {
			live = append(live, p.node)
		}
	}
	for _, n := range live {
		c.checkLeader(n)
		c.recordCommitted(n)
	}
	for i, a := range live {
		for _, b := range live[i+1:] {
			c.checkLogMatching(a, b)
		}
	}
	for _, n := range live {
		if n.role == Leader {
			c.checkLeaderCompleteness(n)
		}
	}
	return c.err
}

func (c *checker) checkLeader(n *Node) {
	if n.role != Leader {
		return
	}
	c.leaders = grow(c.leaders, n.term+1)
	switch l := c.leaders[n.term]; l {
	case None:
		c.leaders[n.term] = n.id
	case n.id:
	default:
		c.fail("election safety: nodes %d and %d both leaders in term %d", l, n.id, n.term)
	}
}

// recordCommitted notes n's committed entries and checks they agree with
// what other nodes committed, and that the log hash agrees at n's commit.
func (c *checker) recordCommitted(n *Node) {
	l := &n.log
	c.hashes = grow(c.hashes, l.committed+1)
	if h := c.hashes[l.committed]; h == 0 {
		c.hashes[l.committed] = l.hash
	} else if h != l.hash {
		c.fail("log hash: node %d has hash %x at commit %d, another node had %x", n.id, l.hash, l.committed, h)
	}
	c.committed = grow(c.committed, l.committed)
	for i := l.snapIndex + 1; i <= l.committed; i++ {
		e := l.entry(i)
		r := &c.committed[i-1]
		if !r.set {
			*r = record{set: true, term: e.Term, data: e.Data, commitTerm: n.term}
			continue
		}
		if r.term != e.Term || !bytes.Equal(r.data, e.Data) {
			c.fail("committed entries differ: node %d has (term %d, %q) at committed index %d, another had (term %d, %q)",
				n.id, e.Term, e.Data, i, r.term, r.data)
		}
		r.commitTerm = min(r.commitTerm, n.term)
	}
}

func (c *checker) checkLogMatching(a, b *Node) {
	lo := max(a.log.snapIndex, b.log.snapIndex) + 1
	hi := min(a.log.lastIndex(), b.log.lastIndex())
	i := hi
	for ; i >= lo; i-- {
		if a.log.entry(i).Term == b.log.entry(i).Term {
			break
		}
	}
	for j := lo; j <= i && i >= lo; j++ {
		ea, eb := a.log.entry(j), b.log.entry(j)
		if ea.Term != eb.Term || !bytes.Equal(ea.Data, eb.Data) {
			c.fail("log matching: nodes %d and %d agree on term %d at index %d but differ at index %d",
				a.id, b.id, a.log.entry(i).Term, i, j)
			return
		}
	}
}

// checkLeaderCompleteness: every entry committed in a term before the
// leader's must be in the leader's log.
func (c *checker) checkLeaderCompleteness(n *Node) {
	for i := n.log.snapIndex + 1; i <= uint64(len(c.committed)); i++ {
		r := c.committed[i-1]
		if !r.set || r.commitTerm >= n.term {
			continue
		}
		if i > n.log.lastIndex() {
			c.fail("leader completeness: leader %d of term %d lacks entry %d committed by term %d",
				n.id, n.term, i, r.commitTerm)
			return
		}
		if e := n.log.entry(i); e.Term != r.term || !bytes.Equal(e.Data, r.data) {
			c.fail("leader completeness: leader %d of term %d has (term %d) at index %d, but (term %d) was committed by term %d",
				n.id, n.term, e.Term, i, r.term, r.commitTerm)
			return
		}
	}
}
