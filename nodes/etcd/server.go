package etcd

import (
	"strconv"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
)

// waiter is a client write waiting for its entry to be applied here.
type waiter struct {
	q     *sim.Request
	timer *sim.Timer
}

// pendingRead is a linearizable Range waiting for its read index, then for
// the member to apply up to it.
type pendingRead struct {
	ctx      string
	q        *sim.Request
	req      *rangeRequest
	term     uint64 // Raft term when the read arrived
	index    uint64
	hasIndex bool
	timer    *sim.Timer // request timeout
	retry    *sim.Timer // asks for a read index again
}

// handleClient dispatches a client RPC.
func (m *member) handleClient(q *sim.Request) {
	switch {
	case m.stopped:
		q.Reply(&reply{Header: m.newHeader(), Err: ErrStopped})
		return
	case m.isLearner() && !learnerAllowed(q.Body):
		q.Reply(&reply{Header: m.newHeader(), Err: ErrLearnerNotSupported})
		return
	}
	switch b := q.Body.(type) {
	case *memberRequest:
		m.handleMember(q, b)
	case *rangeRequest:
		m.handleRange(q, b)
	case *writeRequest:
		m.handleWrite(q, b)
	case *statusRequest:
		m.handleStatus(q)
	case *snapshotRequest:
		m.handleSnapshot(q)
	case *watchCreate:
		m.handleWatchCreate(q, b)
	case *watchProgress:
		m.handleWatchProgress(q, b)
	case *watchCancel:
		m.handleWatchCancel(q, b)
	default:
		q.Reply(&reply{Header: m.newHeader(), Err: ErrUnknownRequest})
	}
}

// handleWrite proposes a write through Raft and waits for it to be applied.
// Without a known leader it answers "no leader" at once: nothing was
// proposed.
func (m *member) handleWrite(q *sim.Request, w *writeRequest) {
	if m.node.Lead() == raft.None && m.cfg.Ablations.Has(ablation.WriteWithoutQuorum) {
		rep := m.applyWrite(w)
		m.flushWatches(true)
		q.Reply(rep)
		return
	}
	if m.node.Lead() == raft.None {
		q.Reply(&reply{Header: m.newHeader(), Err: ErrNoLeader})
		return
	}
	if err := m.node.Propose(encodeProposal(w)); err != nil {
		q.Reply(&reply{Header: m.newHeader(), Err: ErrNoLeader})
		m.afterInput()
		return
	}
	m.wait(q, w.ID)
	m.afterInput()
}

// wait makes the request q, with ID key, wait until its entry is applied
// here, or answers it "request timed out".
func (m *member) wait(q *sim.Request, key requestID) {
	if old := m.waiters[key]; old != nil {
		old.timer.Stop() // a duplicate of the request: the newer one waits
	}
	wt := &waiter{q: q}
	wt.timer = m.h.After(m.cfg.RequestTimeout, "etcd-request-timeout", func() {
		if m.waiters[key] == wt {
			delete(m.waiters, key)
			q.Reply(&reply{Header: m.newHeader(), Err: ErrTimeout})
		}
	})
	m.waiters[key] = wt
}

// answerWaiter answers the client waiting here for request id, if any.
func (m *member) answerWaiter(id requestID, rep *reply) {
	key := id
	wt := m.waiters[key]
	if wt == nil {
		return
	}
	delete(m.waiters, key)
	wt.timer.Stop()
	wt.q.Reply(rep)
}

// handleRange serves a read: serializable reads (and, with the
// etcd-local-reads ablation, every read) from the local store at once,
// linearizable ones after a ReadIndex round.
func (m *member) handleRange(q *sim.Request, r *rangeRequest) {
	if r.Serializable || m.cfg.Ablations.Has(ablation.LocalReads) {
		q.Reply(m.readRange(r))
		return
	}
	if m.node.Lead() == raft.None {
		q.Reply(&reply{Header: m.newHeader(), Err: ErrNoLeader})
		return
	}
	m.readSeq++
	pr := &pendingRead{ctx: "read-" + strconv.FormatUint(m.readSeq, 10), q: q, req: r, term: m.node.Term()}
	pr.timer = m.h.After(m.cfg.RequestTimeout, "etcd-read-timeout", func() {
		if m.dropRead(pr) {
			q.Reply(&reply{Header: m.newHeader(), Err: ErrTimeout})
		}
	})
	pr.retry = m.h.NewTimer("etcd-read-retry", func() {
		if pr.hasIndex || !m.hasRead(pr) {
			return
		}
		pr.retry.Reset(readIndexRetry)
		m.node.ReadIndex([]byte(pr.ctx))
		m.afterInput()
	})
	pr.retry.Reset(readIndexRetry)
	m.reads = append(m.reads, pr)
	m.node.ReadIndex([]byte(pr.ctx))
	m.afterInput()
}

// readRange reads the local store.
func (m *member) readRange(r *rangeRequest) *reply {
	res, err := m.store.Range(r.Key, r.End, mvcc.RangeOptions{Rev: r.Rev, Limit: r.Limit})
	if m.cfg.TraceServed {
		m.traceServedRange(r, &res, err)
	}
	if err != nil {
		return &reply{Header: m.newHeader(), Err: err}
	}
	return &reply{Header: m.newHeader(), Range: &res}
}

// handleReadStates records the read indexes Raft confirmed.
func (m *member) handleReadStates(rs []raft.ReadState) {
	for _, s := range rs {
		for _, pr := range m.reads {
			if !pr.hasIndex && pr.ctx == string(s.Ctx) {
				pr.index, pr.hasIndex = s.Index, true
				pr.retry.Stop()
			}
		}
	}
}

// serveReads answers the reads whose read index has been applied, as
// etcd's linearizableReadLoop waits on applyWait for the confirmed index
// (server/etcdserver/v3_server.go).
func (m *member) serveReads() {
	kept := m.reads[:0]
	for _, pr := range m.reads {
		if pr.hasIndex && pr.index <= m.applied {
			pr.timer.Stop()
			pr.q.Reply(m.readRange(pr.req))
			continue
		}
		kept = append(kept, pr)
	}
	clear(m.reads[len(kept):])
	m.reads = kept
}

// failReadsOnLeaderChange answers "leader changed" to the reads still
// waiting for a read index when a leader of a newer term appears, as etcd's
// linearizable read loop does.
func (m *member) failReadsOnLeaderChange(term, lead uint64) {
	if lead == raft.None {
		return
	}
	kept := m.reads[:0]
	for _, pr := range m.reads {
		if !pr.hasIndex && pr.term != term {
			pr.timer.Stop()
			pr.retry.Stop()
			pr.q.Reply(&reply{Header: m.newHeader(), Err: ErrLeaderChanged})
			continue
		}
		kept = append(kept, pr)
	}
	clear(m.reads[len(kept):])
	m.reads = kept
}

// hasRead reports whether pr still waits.
func (m *member) hasRead(pr *pendingRead) bool {
	for _, x := range m.reads {
		if x == pr {
			return true
		}
	}
	return false
}

// dropRead forgets pr and reports whether it was still waiting.
func (m *member) dropRead(pr *pendingRead) bool {
	for i, x := range m.reads {
		if x == pr {
			pr.retry.Stop()
			m.reads = append(m.reads[:i], m.reads[i+1:]...)
			return true
		}
	}
	return false
}

// handleStatus answers a Status call.
func (m *member) handleStatus(q *sim.Request) {
	st := m.node.Status()
	size := m.store.Rev() - max(m.store.CompactRev(), 0)
	q.Reply(&reply{Header: m.newHeader(), Status: &StatusResult{
		Header:           m.newHeader(),
		Leader:           st.Lead,
		RaftIndex:        st.Commit,
		RaftAppliedIndex: m.applied,
		DBSize:           size,
		IsLeader:         st.Role == raft.Leader,
	}})
}
