package mvcc

// Compact discards the history before rev, as etcd's Compact: it fails with a
// *CompactedError if rev is not past the last compact revision, and with a
// *FutureRevError if rev is past the current revision. For each key it keeps
// the last version at or before rev and everything after it; a deletion
// tombstone older than rev goes too (the key is gone), while a tombstone
// exactly at rev is kept, as etcd keeps it, so that a watch from rev still
// sees that deletion. Reads at rev itself keep working.
func (s *Store) Compact(rev int64) error {
	if rev <= s.compactRev {
		return &CompactedError{CompactRev: s.compactRev}
	}
	if rev > s.rev {
		return &FutureRevError{Rev: rev, CurrentRev: s.rev}
	}
	s.compactRev = rev
	kept := s.ks.hist[:0]
	for _, h := range s.ks.hist {
		h.compact(rev)
		if len(h.recs) > 0 {
			kept = append(kept, h)
		}
	}
	clear(s.ks.hist[len(kept):])
	s.ks.hist = kept
	return nil
}

// compact trims one key's history for a compaction at rev (etcd's
// keyIndex.compact).
func (h *keyHistory) compact(rev int64) {
	i := h.at(rev)
	if i < 0 {
		return
	}
	if h.recs[i].tomb && h.recs[i].main < rev {
		i++
	}
	if i == 0 {
		return
	}
	// Copy, so that the dropped records' backing array can be freed.
	h.recs = append([]record(nil), h.recs[i:]...)
}
