package etcd

import (
	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
)

// The member's BUGGIFY points (sim.BuggifyPoints says what each stands
// for): an apply that lags its commit, a slow stream to one peer, and a
// watch stream held back. With BUGGIFY off each asks and does what the
// member always did.

// applyCommitted applies a Ready's committed entries: at once, or, when
// sim.BuggifyApplyLag fires, after its delay, as etcd's apply loop runs
// behind raft's. Entries committed while some wait queue behind them, so
// that the store applies the log in order. A batch with a membership
// change is applied at once, after whatever waits (a follower's raftNode
// waits for a pending configuration change to be applied before it sends:
// server/etcdserver/raft.go, waitApply).
func (m *member) applyCommitted(ents []raft.Entry) {
	if len(ents) == 0 {
		return
	}
	if hasConfChange(ents) {
		m.applyLaggedNow()
		m.applyEntries(ents)
		return
	}
	if len(m.lagged) > 0 {
		m.lagged = append(m.lagged, ents...)
		return
	}
	if d, ok := m.h.BuggifyDelay(sim.BuggifyApplyLag); ok {
		m.lagged = append(m.lagged, ents...)
		if m.lagTimer == nil {
			m.lagTimer = m.h.NewTimer("etcd-apply-lag", m.catchUpApply)
		}
		m.lagTimer.Reset(d)
		return
	}
	m.applyEntries(ents)
}

// applyEntries applies entries in order.
func (m *member) applyEntries(ents []raft.Entry) {
	for i := range ents {
		m.applyEntry(&ents[i])
	}
}

// applyLaggedNow applies the entries that wait, if any (before a
// membership change or a snapshot, which must find them applied).
func (m *member) applyLaggedNow() {
	if len(m.lagged) == 0 {
		return
	}
	ents := m.lagged
	m.lagged = nil
	m.lagTimer.Stop()
	m.applyEntries(ents)
}

// catchUpApply is the lagging apply catching up: it applies what waits,
// then does what finishReady does after an apply.
func (m *member) catchUpApply() {
	if m.stopped {
		return
	}
	m.applyLaggedNow()
	m.serveReads()
	m.maybeSnapshot()
	m.afterInput()
}

// hasConfChange reports whether ents hold a membership change.
func hasConfChange(ents []raft.Entry) bool {
	for i := range ents {
		if ents[i].Type == raft.EntryConfChange {
			return true
		}
	}
	return false
}

// slowPeer is a peer whose stream is slow (sim.BuggifySlowPeer): the
// messages for it wait, in order, until the stream drains.
type slowPeer struct {
	queue []*raft.Message
}

// sendToPeer puts a Raft message on the fabric to host to, unless that
// peer's stream is slow: then it waits behind the messages before it.
// When sim.BuggifySlowPeer fires, the stream to that peer turns slow for
// the delay drawn.
func (m *member) sendToPeer(to sim.HostID, msg *raft.Message) {
	if sp := m.slow[to]; sp != nil {
		sp.queue = append(sp.queue, msg)
		return
	}
	d, ok := m.h.BuggifyDelay(sim.BuggifySlowPeer)
	if !ok {
		m.h.Send(to, PeerPort, msg)
		return
	}
	sp := &slowPeer{queue: []*raft.Message{msg}}
	if m.slow == nil {
		m.slow = make(map[sim.HostID]*slowPeer)
	}
	m.slow[to] = sp
	m.h.After(d, "etcd-slow-peer", func() {
		delete(m.slow, to)
		for _, q := range sp.queue {
			m.h.Send(to, PeerPort, q)
		}
	})
}

// sendWatch sends one response of a watch stream, unless the stream is
// held back: then it waits behind the responses before it. When
// sim.BuggifyLateWatch fires for a response with events, the stream is
// held back for the delay drawn, as etcd holds a blocked watcher's
// events (a victim) until its sync loops deliver them. Whatever comes
// after on the stream, a progress notification or a cancellation, comes
// after them, so the watch's guarantees hold.
func (m *member) sendWatch(ws *watchStream, msg *watchMessage, events bool) {
	if ws.held != nil {
		ws.held = append(ws.held, msg)
		return
	}
	if !events {
		m.h.Send(ws.host, ws.port, msg)
		return
	}
	d, ok := m.h.BuggifyDelay(sim.BuggifyLateWatch)
	if !ok {
		m.h.Send(ws.host, ws.port, msg)
		return
	}
	ws.held = []*watchMessage{msg}
	m.h.After(d, "etcd-watch-late", func() {
		held := ws.held
		ws.held = nil
		for _, x := range held {
			m.h.Send(ws.host, ws.port, x)
		}
	})
}
