package etcd

import (
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// emitPersisted traces what a Ready made durable, its snapshot and
// entries, once its fsync completed and before its messages (the
// acknowledgements of those entries) are sent: etcdtrace.Persist. A Ready
// that saved neither (a HardState alone) traces nothing.
func (m *member) emitPersisted(rd *raft.Ready) {
	if rd.Snapshot == nil && len(rd.Entries) == 0 {
		return
	}
	ev := &etcdtrace.Persist{Member: m.cfg.Name, Runs: termRuns(nil, rd.Entries)}
	if s := rd.Snapshot; s != nil {
		ev.SnapIndex, ev.SnapTerm = s.Index, s.Term
	}
	m.h.Emit(ev)
}

// bootPersisted is the etcdtrace.Persist of a member's boot: the snapshot
// and entries it loaded from its disk.
func bootPersisted(name string, ps *raft.PersistentState) *etcdtrace.Persist {
	ev := &etcdtrace.Persist{Member: name, Boot: true, Runs: termRuns(nil, ps.Entries)}
	if s := ps.Snapshot; s != nil {
		ev.SnapIndex, ev.SnapTerm = s.Index, s.Term
	}
	return ev
}

// termRuns appends to dst the runs of equal terms of ents, which are
// consecutive.
func termRuns(dst []etcdtrace.TermRun, ents []raft.Entry) []etcdtrace.TermRun {
	for i := range ents {
		e := &ents[i]
		if k := len(dst) - 1; k >= 0 && dst[k].Term == e.Term && dst[k].To+1 == e.Index {
			dst[k].To = e.Index
			continue
		}
		dst = append(dst, etcdtrace.TermRun{From: e.Index, To: e.Index, Term: e.Term})
	}
	return dst
}
