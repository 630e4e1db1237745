// Package raft is a pure, deterministic Raft consensus core for kubesim's
// simulated etcd members.
//
// The core is a state machine in the style of go.etcd.io/raft's RawNode. It
// performs no I/O, starts no goroutines and reads no clock: time advances only
// through Tick, peers talk only through Step, and every effect the core wants
// (persist this, send that, apply those) is handed out as one batch by Ready.
// Randomness (the randomized election timeout) comes from the injected
// Config.Rand, so one seed always yields one behaviour.
//
// # Features
//
// Leader election with randomized timeouts in [ElectionTick, 2*ElectionTick),
// PreVote (thesis §9.6), CheckQuorum with a leader lease on followers (thesis
// §6.2), leadership transfer (thesis §3.10), log replication with fast conflict
// backtracking (paper §5.3), per-follower flow control (probe, replicate and
// snapshot states with a cap on in-flight appends), an empty entry appended by
// every new leader, commitment that only counts replicas of current-term
// entries (paper §5.4.2), log compaction with snapshots sent to lagging
// followers (paper §7), ReadIndex for linearizable reads (thesis §6.4) and
// proposal forwarding from followers to the leader, and single-server
// membership change (thesis chapter 4), described below.
//
// # Membership change
//
// Configurations change one server at a time (thesis §4.1), as
// go.etcd.io/raft does it: ProposeConfChange appends an EntryConfChange
// entry (add a voter, add a learner, remove a node; etcd promotes a learner
// by adding it as a voter), and the change takes effect on each node only
// when its application applies the committed entry and calls
// ApplyConfChange, which returns the new ConfState. The leader accepts no
// second change while one may be unapplied (pendingConfIndex; a refused
// change becomes an empty entry), a node with committed but unapplied conf
// changes does not campaign, and a leader that is no longer a voter steps
// down (thesis §4.2.2). Learners (thesis §4.2.1) receive the log and
// snapshots but never campaign, and their answers never count towards
// commitment, elections, ReadIndex or CheckQuorum; any node answers vote
// requests, since it may have been promoted without knowing it. PreVote and
// CheckQuorum keep a removed server that never learned of its removal from
// disrupting the cluster (thesis §4.2.3). A node that joins an existing
// cluster starts with empty Config.Peers and learns its configuration from
// a snapshot: the bootstrap configuration is Config.Peers, not entries at
// the head of the log as etcd's StartNode writes them, so the leader catches
// a joiner up by snapshot, and asks the application for a newer one
// (WantsSnapshot) when its latest predates the member. Snapshots carry the
// ConfState in effect at their index; a restarted node rebuilds its
// configuration from PersistentState (see Restart).
//
// # Using a Node
//
// The driver loop is:
//
//	n.Tick() / n.Step(m) / n.Propose(data) / n.ReadIndex(ctx) ...
//	if n.HasReady() {
//		rd := n.Ready()
//		// 1. persist rd.Snapshot (if any), then rd.Entries, then rd.HardState
//		//    (if rd.HardStateChanged), and fsync.
//		// 2. send rd.Messages.
//		// 3. restore rd.Snapshot into the state machine (if any), then apply
//		//    rd.CommittedEntries in order; hand rd.ReadStates to waiting readers.
//		n.Advance(rd)
//	}
//
// Tick and Step may be called between Ready and Advance (for example while a
// simulated fsync is in flight), but Ready must not be called again before the
// previous Ready was passed to Advance (HasReady may stay true meanwhile,
// because the Ready's entries are not durable yet).
//
// Every message's From is the node that sent it. Followers forward their own
// proposals, ReadIndex requests and leadership-transfer requests to the
// leader they know (one hop); requests forwarded to a non-leader are dropped
// and the client retries, as with etcd.
//
// # Persistence contract
//
// The Messages of a Ready must be sent only after the same Ready's HardState,
// Entries and Snapshot are durable. A vote or a term change is part of the
// HardState, and an append acknowledgement is only correct once the
// acknowledged entries are on disk; sending before the fsync completes breaks
// Raft's safety argument (kubesim has a member-level ablation that does exactly
// that on purpose). Committed entries must be applied only after the same
// Ready's Entries are durable. The leader counts its own log towards a commit
// quorum only for entries that Advance has reported durable.
//
// Slices handed out by Ready (entries, their Data, snapshots) are shared with
// the core and must be treated as read-only. Likewise the data passed to
// Propose must not be modified afterwards.
//
// # Restart
//
// New takes a PersistentState: the last durable HardState, the optional
// snapshot and the log tail after it. The application is assumed to have
// restored its state machine from the snapshot; committed entries after the
// snapshot are handed out again in Ready (unless Config.Applied says they are
// already applied). The configuration is PersistentState.ConfState if set,
// else the snapshot's (or Config.Peers without one) with the conf changes up
// to Config.Applied replayed; the application re-applies the rest.
//
// # Log hash
//
// Status.LogHash is a 64-bit FNV-1a hash over (index, term, data) of every
// committed entry, maintained incrementally as the commit index advances.
// Snapshots carry the hash at their index, so a node restarted from a snapshot
// (or caught up by one) reports the same hash as its peers at the same commit
// index. Checkers use it to compare committed logs cheaply.
package raft
