// Package mvcc is a pure, deterministic, in-memory model of etcd's MVCC key-value
// store and its watchable store (etcd server/storage/mvcc), together with the
// request-level checks that etcd's KV service applies before a request reaches
// that layer (empty keys, duplicate keys in a txn, too many txn ops).
//
// It answers the way an etcd v3 server does:
//
//   - One store-wide revision, 1 on an empty store. A write that changes
//     something bumps it by one; several changes in one Txn share the main
//     revision with increasing sub-revisions. Reads and no-op deletes do not bump.
//   - Range, Put, DeleteRange and Txn (compares on VERSION, CREATE, MOD, VALUE and
//     LEASE, nested txns) with etcd's header revisions and range-end conventions.
//   - Compact, after which reads below the compact revision fail with
//     ErrCompacted; reading at the compact revision itself still works.
//   - Watches that start at any uncompacted revision, catch up from history,
//     group the events of one revision in one response, and support progress
//     notifications. Delivery is pull-based (SyncWatchers, Drain) so that the
//     simulated member decides when responses leave the store.
//   - A deterministic Snapshot/Restore encoding and a HashKV-like hash.
//
// The package never starts goroutines, never reads the clock and never lets map
// iteration order reach its output: everything is kept in sorted slices.
package mvcc
