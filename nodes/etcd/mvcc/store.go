package mvcc

import "github.com/kubesim/kubesim/ablation"

// DefaultMaxTxnOps is etcd's default --max-txn-ops: the most compares, or
// operations in one branch, that a txn may carry.
const DefaultMaxTxnOps = 128

// Store is the MVCC key-value store of one etcd member, with its watchers.
// It is a plain state machine: every method runs to completion on the caller's
// goroutine, and the same calls always give the same answers. Create it with New.
type Store struct {
	// Ablations are the run's ablation switches; the store asks for
	// ablation.IgnoreCompare, IgnoreReadRevision, TxnNotAtomic and
	// CompactedWatchSilent. Off in the zero value.
	Ablations ablation.Set
	// MaxTxnOps bounds txn size as etcd's --max-txn-ops; 0 means
	// DefaultMaxTxnOps.
	MaxTxnOps int

	ks         keyspace
	rev        int64
	compactRev int64
	watch      watchState
}

// New returns an empty store at revision 1 with no compaction yet, as a fresh
// etcd member (its compact revision is -1 until the first Compact).
func New() *Store {
	return &Store{rev: 1, compactRev: -1, watch: watchState{nextID: 1}}
}

// Rev returns the current revision: the revision of the last write.
func (s *Store) Rev() int64 { return s.rev }

// CompactRev returns the revision of the last compaction, -1 if none yet.
// Reads below it fail with ErrCompacted.
func (s *Store) CompactRev() int64 { return s.compactRev }

// Range reads the keys in [key, end) (see the package doc for end's
// conventions) at opts.Rev, as etcd's Range: ErrFutureRev past the current
// revision, ErrCompacted below the compact revision.
func (s *Store) Range(key, end []byte, opts RangeOptions) (RangeResult, error) {
	if len(key) == 0 {
		return RangeResult{}, ErrEmptyKey
	}
	return s.rangeKeys(newKeyRange(key, end), opts, s.rev)
}

// Put writes value under key at a new revision, as etcd's Put.
func (s *Store) Put(key, value []byte, opts PutOptions) (PutResult, error) {
	op := Op{Type: OpPut, Key: key, Value: value, Put: opts}
	if err := checkOp(op, s.maxTxnOps()); err != nil {
		return PutResult{}, err
	}
	t := s.beginWrite()
	if err := t.checkPut(op); err != nil {
		return PutResult{}, err
	}
	res := t.put(op)
	t.end()
	return res, nil
}

// DeleteRange deletes the keys in [key, end) at a new revision, as etcd's
// DeleteRange. Deleting nothing does not bump the revision.
func (s *Store) DeleteRange(key, end []byte, prevKV bool) (DeleteResult, error) {
	if len(key) == 0 {
		return DeleteResult{}, ErrEmptyKey
	}
	t := s.beginWrite()
	res := t.deleteRange(Op{Type: OpDelete, Key: key, End: end, PrevKV: prevKV})
	t.end()
	return res, nil
}

// maxTxnOps returns the configured txn size bound.
func (s *Store) maxTxnOps() int {
	if s.MaxTxnOps > 0 {
		return s.MaxTxnOps
	}
	return DefaultMaxTxnOps
}

// rangeKeys reads r as seen at opts.Rev by a reader whose current revision is
// curRev (a write txn sees its own changes at beginRev+1), as etcd's
// storeTxnCommon.rangeKeys plus the server's limit/more/keys-only handling.
func (s *Store) rangeKeys(r keyRange, opts RangeOptions, curRev int64) (RangeResult, error) {
	rev := opts.Rev
	if rev > curRev {
		return RangeResult{}, &FutureRevError{Rev: rev, CurrentRev: curRev}
	}
	if rev <= 0 {
		rev = curRev
	}
	if rev < s.compactRev {
		return RangeResult{}, &CompactedError{CompactRev: s.compactRev}
	}
	if s.Ablations.Has(ablation.IgnoreReadRevision) {
		rev = curRev // ablation: the past is read from the present
	}
	res := RangeResult{Rev: curRev}
	for _, h := range s.ks.span(r) {
		rec, ok := h.liveAt(rev)
		if !ok {
			continue
		}
		res.Count++
		if opts.CountOnly || (opts.Limit > 0 && int64(len(res.KVs)) >= opts.Limit) {
			continue
		}
		res.KVs = append(res.KVs, h.kv(rec, opts.KeysOnly))
	}
	res.More = !opts.CountOnly && opts.Limit > 0 && res.Count > opts.Limit
	return res, nil
}
