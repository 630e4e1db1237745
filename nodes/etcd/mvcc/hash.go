package mvcc

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
)

// KeyValueHash is the answer to HashKV, as etcd's KeyValueHash.
type KeyValueHash struct {
	// Hash is a 64-bit FNV-1a digest of the hashed history.
	Hash uint64
	// CompactRevision is the store's compact revision, also mixed into Hash.
	CompactRevision int64
	// Revision is the revision the hash covers up to.
	Revision int64
}

// Hash returns HashKV at the current revision: a digest of every retained
// version and tombstone, of the compact revision and of the current revision.
// Two members that applied the same entries have the same hash.
func (s *Store) Hash() uint64 {
	h, _ := s.HashKV(0)
	return h.Hash
}

// HashKV hashes the store's history up to rev (0 means current), as etcd's
// HashKV is used to compare members: every version and tombstone with a main
// revision in (compact revision, rev], plus the versions that compaction kept
// (tombstones at the compact revision excluded, as etcd's keep set excludes
// them). It fails as etcd's does: *CompactedError for rev <= compact revision,
// *FutureRevError past the current revision. It is not byte-compatible with
// etcd's CRC32, only equivalent in what it covers.
func (s *Store) HashKV(rev int64) (KeyValueHash, error) {
	if rev > 0 && rev <= s.compactRev {
		return KeyValueHash{}, &CompactedError{CompactRev: s.compactRev}
	}
	if rev > s.rev {
		return KeyValueHash{}, &FutureRevError{Rev: rev, CurrentRev: s.rev}
	}
	if rev <= 0 {
		rev = s.rev
	}
	d := digest{h: fnv.New64a()}
	d.int(s.compactRev)
	d.int(rev)
	for _, kh := range s.ks.hist {
		for _, r := range kh.recs {
			if r.main > rev {
				break
			}
			if r.tomb && r.main <= s.compactRev {
				continue
			}
			d.str(kh.key)
			d.int(r.main)
			d.int(r.sub)
			if r.tomb {
				d.int(1)
				continue
			}
			d.int(0)
			d.str(r.value)
			d.int(r.create)
			d.int(r.version)
			d.int(r.lease)
		}
	}
	return KeyValueHash{Hash: d.h.Sum64(), CompactRevision: s.compactRev, Revision: rev}, nil
}

// digest feeds length-prefixed fields to a hash, so that field boundaries
// cannot be confused.
type digest struct {
	h   hash.Hash64
	buf [binary.MaxVarintLen64]byte
}

// int writes one integer.
func (d *digest) int(v int64) {
	n := binary.PutVarint(d.buf[:], v)
	d.h.Write(d.buf[:n])
}

// str writes one length-prefixed string.
func (d *digest) str(s string) {
	d.int(int64(len(s)))
	d.h.Write([]byte(s))
}
