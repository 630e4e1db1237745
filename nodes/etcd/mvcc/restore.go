package mvcc

import (
	"bytes"
	"fmt"
	"slices"
)

// NewFromKVs returns a store holding exactly kvs, the live keys of a
// snapshot, at revision rev with compact revision compactRev, as
// `etcdutl snapshot restore` leaves a member's backend: the key bucket
// holds the snapshot's versions, the current revision is the snapshot's
// (or the bumped one) and the meta bucket's compact revision is the
// snapshot's (or, with --mark-compacted, the bumped revision:
// etcdutl/snapshot/v3_snapshot.go, modifyLatestRevision). The keys'
// revisions must not exceed rev, and compactRev must lie in [-1, rev].
// Keys that share a mod revision (one txn) get sub-revisions in key
// order, as a txn's writes do.
func NewFromKVs(kvs []KeyValue, rev, compactRev int64) (*Store, error) {
	if rev < 1 || compactRev < -1 || compactRev > rev {
		return nil, invalidSnapshot(fmt.Sprintf("revision %d, compact revision %d", rev, compactRev))
	}
	sorted := slices.Clone(kvs)
	slices.SortFunc(sorted, func(a, b KeyValue) int { return bytes.Compare(a.Key, b.Key) })
	s := New()
	s.rev, s.compactRev = rev, compactRev
	subs := make(map[int64]int64)
	for i, kv := range sorted {
		switch {
		case len(kv.Key) == 0:
			return nil, invalidSnapshot("empty key")
		case i > 0 && bytes.Equal(sorted[i-1].Key, kv.Key):
			return nil, invalidSnapshot(fmt.Sprintf("key %q twice", kv.Key))
		case kv.ModRevision < 1 || kv.ModRevision > rev || kv.CreateRevision < 1 || kv.CreateRevision > kv.ModRevision || kv.Version < 1:
			return nil, invalidSnapshot(fmt.Sprintf("key %q has revisions %d/%d, version %d at revision %d",
				kv.Key, kv.CreateRevision, kv.ModRevision, kv.Version, rev))
		}
		sub := subs[kv.ModRevision]
		subs[kv.ModRevision] = sub + 1
		s.ks.hist = append(s.ks.hist, &keyHistory{key: string(kv.Key), recs: []record{{
			main: kv.ModRevision, sub: sub, value: string(kv.Value),
			create: kv.CreateRevision, version: kv.Version, lease: kv.Lease,
		}}})
	}
	return s, nil
}
