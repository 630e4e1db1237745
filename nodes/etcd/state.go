package etcd

import (
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// raftView is the part of Raft's status whose changes are traced.
type raftView struct {
	term   uint64
	role   raft.Role
	lead   uint64
	commit uint64
}

// roleNames are the trace's role strings.
var roleNames = map[raft.Role]string{
	raft.Follower:     "follower",
	raft.PreCandidate: "pre-candidate",
	raft.Candidate:    "candidate",
	raft.Leader:       "leader",
}

// emitState emits etcdtrace.RaftState when the term, role, leader or commit
// index changed since the last one (or always, with force), and fails reads
// that a leader change invalidated.
func (m *member) emitState(force bool) {
	st := m.node.Status()
	v := raftView{term: st.Term, role: st.Role, lead: st.Lead, commit: st.Commit}
	if !force && v == m.last {
		return
	}
	leadChanged := v.term != m.last.term || v.lead != m.last.lead
	m.last = v
	m.h.Emit(&etcdtrace.RaftState{
		Member:      m.cfg.Name,
		ID:          m.cfg.ID,
		Incarnation: m.h.Incarnation(),
		Term:        st.Term,
		Role:        roleNames[st.Role],
		Lead:        st.Lead,
		Commit:      st.Commit,
		LogHash:     st.LogHash,
	})
	if leadChanged {
		m.failReadsOnLeaderChange(st.Term, st.Lead)
	}
}

// EmitKVHash emits etcdtrace.KVHash for the member running on h, if h is up
// and runs one: its applied index, revisions and store hash.
func EmitKVHash(h *sim.Host) { EmitKVHashAt(h, 0) }

// EmitKVHashAt is EmitKVHash with the store hashed at revision rev (0: the
// current one), as etcd's corruption check compares members that are still
// applying: each hashes the same past revision (HashKV). A member that has
// not reached rev, or compacted past it, reports nothing.
func EmitKVHashAt(h *sim.Host, rev int64) {
	m, ok := h.Exposed(exposeName).(*member)
	if !ok || m.stopped {
		return // no member, or one that was removed and stopped
	}
	kv, err := m.store.HashKV(rev)
	if err != nil {
		return
	}
	h.Emit(&etcdtrace.KVHash{
		Member:     m.cfg.Name,
		Applied:    m.applied,
		Rev:        kv.Revision,
		CompactRev: kv.CompactRevision,
		Hash:       kv.Hash,
	})
}

// KVRevision returns the current revision of the member running on h, and
// false if h runs none.
func KVRevision(h *sim.Host) (int64, bool) {
	m, ok := h.Exposed(exposeName).(*member)
	if !ok {
		return 0, false
	}
	return m.store.Rev(), true
}
