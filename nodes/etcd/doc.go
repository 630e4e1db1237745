// Package etcd is kubesim's simulated etcd: the member (Raft from
// nodes/raft, the MVCC store from nodes/etcd/mvcc, watch, a WAL on the
// simulated disk and the client RPC surface) and the client with endpoint
// failover that other processes use to talk to it.
//
// # The member
//
// Boot(cfg) is a sim.HostSpec.Boot function. At every boot the member rebuilds
// itself from its disk: the snapshot file restores the MVCC store (and the
// apply layer's de-duplication table), the WAL gives Raft its HardState and log
// tail, and Raft then hands out again every committed entry after the snapshot
// (raft Config.Applied is left at zero), which the member re-applies. Apply
// events for those indexes are therefore emitted again after a restart, with
// the same entries.
//
// The Ready loop follows nodes/raft's persistence contract: one Ready at a
// time; its read states go to the waiting reads at once (as etcd's raftNode
// hands them to the linearizable read loop before saving); its snapshot,
// entries and HardState are written to the disk and synced, and only then
// are its messages sent, its committed entries applied, the reads whose
// index is applied served, and Advance called. A leader sends its messages
// (appends, heartbeats) before the sync, as etcd's leader replicates while
// it writes its own log (the core counts the leader's entries towards a
// quorum only once durable); the raft-ack-before-fsync ablation makes
// every member send before the sync.
//
// Every SnapshotCount applied entries the member takes a Raft snapshot
// (Compact) and rewrites its WAL, so memory and disk stay bounded.
//
// # On-disk format
//
// Two files. "snap" holds one record: the latest Raft snapshot. "wal" holds a
// sequence of records: HardStates and log entries, where an entry at index i
// replaces every entry at i or later. Every record ends with a CRC-32 of its
// contents; a torn record (the last write of a crash) fails its CRC, and it and
// everything after it are dropped at boot.
//
// # Requests
//
// Reads are served locally: a linearizable Range first obtains a read index
// through Raft's ReadIndex and waits until the member has applied up to it; a
// serializable Range is answered at once. Writes (Put, DeleteRange, Txn,
// Compact) are proposed through Raft as encoded requests carrying a unique
// request ID (client identity and sequence number); the member that received
// the request answers it once it has applied the entry itself. The apply layer
// de-duplicates by request ID: it remembers, per client identity, the highest
// sequence number applied, and skips an entry whose sequence is not higher.
// Clients issue sequence numbers in increasing order, one identity per client
// incarnation, so the table holds one number per client incarnation.
//
// Errors carry etcd's own messages ("etcdserver: no leader", "etcdserver:
// request timed out", "etcdserver: leader changed", "mvcc: required revision
// has been compacted", ...). They travel as Go error values inside the
// simulated messages.
//
// # Membership
//
// Client.MemberAdd (a voter or a learner on its host), MemberRemove,
// MemberPromote and MemberList change and read the membership as etcd's
// Cluster API does; the leader serves the changes (a follower answers "not
// leader" and the client tries another endpoint). A change passes etcd's strict reconfiguration checks
// first (mayAddMember, mayRemoveMember, mayPromoteMember, isLearnerReady: no
// change that would lose quorum with the connected members, promotion only
// in sync with the leader, one learner at most), is proposed as a Raft conf
// change carrying the member's attributes, and is validated again and
// applied by every member when the entry is applied (refused changes reach
// Raft as no-ops), each time traced as etcdtrace.Membership. A learner
// serves only serializable reads, status, snapshots and the member list
// ("rpc not supported for learner"). A member that removed itself stops,
// and messages from removed members are dropped, as etcd's transport does.
// A new member boots with Config.Join and an empty disk and is caught up by
// a snapshot, whose data then carries the membership; the membership is
// rebuilt at boot from the snapshot and the conf change entries re-applied
// after it.
//
// # Watches
//
// A watch RPC creates an MVCC watch on the member. After every applied entry
// (and after a watch is created or a progress notification is asked for) the
// member drains the store and sends each response to the watcher as a one-way
// message, numbered per watch so that the client side can model a TCP stream:
// a gap means the stream broke, and the watcher must resume elsewhere. A member
// crash ends all its watches.
package etcd
