package mvcc

// writeTxn is one write transaction in progress, as etcd's storeTxnWrite wrapped
// by the watchable store. Changes are written to the key histories at once, at main
// revision beginRev+1, so later operations of the same txn read them (etcd
// updates its in-memory index on each put and tombstone). end() commits the
// revision and notifies the watchers.
type writeTxn struct {
	s        *Store
	beginRev int64
	changes  []change
}

// change is one put or tombstone made by a write txn.
type change struct {
	h   *keyHistory
	rec record
}

// beginWrite opens a write txn on the current revision.
func (s *Store) beginWrite() *writeTxn {
	return &writeTxn{s: s, beginRev: s.rev}
}

// curRev is the revision this txn reads at: beginRev, or beginRev+1 once it has
// changed something.
func (t *writeTxn) curRev() int64 {
	if len(t.changes) > 0 {
		return t.beginRev + 1
	}
	return t.beginRev
}

// rangeOp runs a read inside the txn.
func (t *writeTxn) rangeOp(op Op) (RangeResult, error) {
	return t.s.rangeKeys(newKeyRange(op.Key, op.End), op.Range, t.curRev())
}

// prevKV returns the current version of key as seen inside the txn, if any.
func (t *writeTxn) prevKV(key []byte) (KeyValue, bool) {
	h := t.s.ks.get(string(key))
	if h == nil {
		return KeyValue{}, false
	}
	rec, ok := h.liveAt(t.curRev())
	if !ok {
		return KeyValue{}, false
	}
	return h.kv(rec, false), true
}

// checkPut is etcd's pre-apply check of a put: IgnoreValue and IgnoreLease need
// an existing key.
func (t *writeTxn) checkPut(op Op) error {
	if op.Put.IgnoreValue || op.Put.IgnoreLease {
		if _, ok := t.prevKV(op.Key); !ok {
			return ErrKeyNotFound
		}
	}
	return nil
}

// put writes one key, as etcd's put: the create revision and version carry on
// from a live key, or restart at this revision and 1.
func (t *writeTxn) put(op Op) PutResult {
	value, lease := string(op.Value), op.Put.Lease
	var res PutResult
	var prev KeyValue
	var had bool
	if op.Put.PrevKV || op.Put.IgnoreValue || op.Put.IgnoreLease {
		// Only these need the previous version; building it copies.
		prev, had = t.prevKV(op.Key)
	}
	if op.Put.IgnoreValue || op.Put.IgnoreLease {
		if !had {
			panic("mvcc: put with IgnoreValue/IgnoreLease on a missing key passed its check")
		}
		if op.Put.IgnoreValue {
			value = string(prev.Value)
		}
		if op.Put.IgnoreLease {
			lease = prev.Lease
		}
	}
	if op.Put.PrevKV && had {
		res.PrevKV = &prev
	}
	rev := t.beginRev + 1
	h := t.s.ks.getOrCreate(string(op.Key))
	rec := record{main: rev, sub: int64(len(t.changes)), value: value, create: rev, version: 1, lease: lease}
	if n := len(h.recs); n > 0 && !h.recs[n-1].tomb {
		rec.create = h.recs[n-1].create
		rec.version = h.recs[n-1].version + 1
	}
	h.recs = append(h.recs, rec)
	t.changes = append(t.changes, change{h: h, rec: rec})
	res.Rev = rev
	return res
}

// deleteRange tombstones every live key in the range, as etcd's deleteRange.
func (t *writeTxn) deleteRange(op Op) DeleteResult {
	var res DeleteResult
	rr := t.curRev()
	var doomed []*keyHistory
	for _, h := range t.s.ks.span(newKeyRange(op.Key, op.End)) {
		rec, ok := h.liveAt(rr)
		if !ok {
			continue
		}
		doomed = append(doomed, h)
		if op.PrevKV {
			res.PrevKVs = append(res.PrevKVs, h.kv(rec, false))
		}
	}
	rev := t.beginRev + 1
	for _, h := range doomed {
		rec := record{main: rev, sub: int64(len(t.changes)), tomb: true}
		h.recs = append(h.recs, rec)
		t.changes = append(t.changes, change{h: h, rec: rec})
	}
	res.Deleted = int64(len(doomed))
	res.Rev = t.curRev()
	return res
}

// end commits the txn: if it changed anything, the store moves to the new
// revision and the synced watchers get its events, all in one response each.
func (t *writeTxn) end() {
	if len(t.changes) == 0 {
		return
	}
	rev := t.beginRev + 1
	t.s.rev = rev
	evs := make([]Event, len(t.changes))
	for i, c := range t.changes {
		evs[i] = c.h.event(c.rec)
	}
	t.s.notify(rev, evs)
}
