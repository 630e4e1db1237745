package etcd

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// watchStream is one client watch on this member: where its responses go
// and how many were sent.
type watchStream struct {
	host   sim.HostID
	port   string
	stream uint64 // the watcher's tag
	id     mvcc.WatchID
	seq    uint64
	// With progress_notify: progress says that no events were sent since
	// the last tick of ticker (etcd's serverWatchStream.progress[id]).
	progressNotify bool
	progress       bool
	ticker         *sim.Timer
	// held are the responses waiting while BUGGIFY holds the stream back
	// (buggify.go, sendWatch); nil when it is not held.
	held []*watchMessage
}

// findWatch returns the watch the watcher on host tagged stream, or nil.
func (m *member) findWatch(host sim.HostID, stream uint64) *watchStream {
	for _, ws := range m.watches {
		if ws.host == host && ws.stream == stream {
			return ws
		}
	}
	return nil
}

// removeWatch cancels a watch in the store and forgets it.
func (m *member) removeWatch(ws *watchStream) {
	_ = m.store.CancelWatch(ws.id)
	if ws.ticker != nil {
		ws.ticker.Stop()
	}
	for i, x := range m.watches {
		if x == ws {
			m.watches = append(m.watches[:i], m.watches[i+1:]...)
			return
		}
	}
}

// handleWatchCreate opens a watch. Like a client that asks etcd to require a
// leader (as kube-apiserver does), a member without a leader refuses it. A
// duplicate of a create that already succeeded is answered again without a
// second watch.
func (m *member) handleWatchCreate(q *sim.Request, c *watchCreate) {
	if m.node.Lead() == raft.None {
		q.Reply(&reply{Header: m.newHeader(), Err: ErrNoLeader})
		return
	}
	if m.findWatch(q.From, c.Stream) != nil {
		q.Reply(&reply{Header: m.newHeader()})
		return
	}
	start := c.StartRev
	if m.cfg.Ablations.Has(ablation.WatchResumeFromNow) && start != 0 && start <= m.store.Rev() {
		start = m.store.Rev() + 1 // ablation: the history in between is lost
	}
	id, err := m.store.NewWatch(mvcc.WatchRequest{Key: c.Key, End: c.End, StartRev: start, PrevKV: c.PrevKV})
	if err != nil {
		q.Reply(&reply{Header: m.newHeader(), Err: err})
		return
	}
	ws := &watchStream{host: q.From, port: c.Port, stream: c.Stream, id: id}
	m.watches = append(m.watches, ws)
	if c.ProgressNotify {
		m.startProgressTicker(ws)
	}
	q.Reply(&reply{Header: m.newHeader()})
	m.flushWatches(false)
}

// handleWatchProgress queues a progress notification for a stream. An
// unknown stream gets mvcc.ErrWatcherNotExist and a member without a leader
// ErrNoLeader, so that the watcher moves on.
func (m *member) handleWatchProgress(q *sim.Request, p *watchProgress) {
	ws := m.findWatch(q.From, p.Stream)
	switch {
	case ws == nil:
		q.Reply(&reply{Header: m.newHeader(), Err: mvcc.ErrWatcherNotExist})
	case m.node.Lead() == raft.None:
		q.Reply(&reply{Header: m.newHeader(), Err: ErrNoLeader})
	default:
		m.store.RequestProgress(ws.id)
		q.Reply(&reply{Header: m.newHeader()})
		m.flushWatches(false)
	}
}

// handleWatchCancel ends a stream.
func (m *member) handleWatchCancel(q *sim.Request, c *watchCancel) {
	if ws := m.findWatch(q.From, c.Stream); ws != nil {
		m.removeWatch(ws)
	}
	q.Reply(&reply{Header: m.newHeader()})
}

// flushWatches drains the store's watch responses and sends each to its
// watcher. The member's own whole-keyspace watch is not sent: when forApply
// is set, its events are returned as the changes of the entry just applied.
func (m *member) flushWatches(forApply bool) []etcdtrace.Change {
	var changes []etcdtrace.Change
	for _, resp := range m.store.Drain() {
		if resp.WatchID == m.internal {
			if forApply {
				changes = AppendChanges(changes, resp.Events, sharedString)
			}
			continue
		}
		var ws *watchStream
		for _, x := range m.watches {
			if x.id == resp.WatchID {
				ws = x
			}
		}
		if ws == nil {
			continue // cancelled meanwhile
		}
		if len(resp.Events) > 0 {
			ws.progress = false // events sent: the next tick's notification is elided
		}
		ws.seq++
		if m.cfg.TraceServed {
			m.traceServedWatch(ws, &resp)
		}
		m.sendWatch(ws, &watchMessage{Stream: ws.stream, Seq: ws.seq, Member: m.cfg.Name, Resp: resp}, len(resp.Events) > 0)
		if resp.Canceled {
			m.removeWatch(ws)
		}
	}
	return changes
}
