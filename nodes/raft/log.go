package raft

// raftLog is a node's log: an optional snapshot covering indexes up to
// snapIndex, followed by the entries ents (ents[i].Index == snapIndex+1+i).
//
// It also tracks which part is durable (stabled), the commit index, what the
// application has been handed (applying) and acknowledged (applied), and the
// running hash of the committed prefix.
//
// Aliasing: slices of ents travel in messages and Ready. The log never
// rewrites a slot it has handed out: truncation caps the slice so that the
// next append reallocates.
type raftLog struct {
	snapIndex uint64
	snapTerm  uint64
	snapshot  *Snapshot // latest snapshot (for MsgSnap); nil if none
	ents      []Entry

	// pendingSnap is a snapshot received from the leader that is not yet
	// durable; Ready hands it out, Advance clears it.
	pendingSnap *Snapshot

	stabled   uint64 // last durable index
	committed uint64
	applying  uint64 // last index handed out for application (or snapshot)
	applied   uint64 // last index the application acknowledged in Advance

	hash uint64 // FNV-1a over committed entries 1..committed
	// hashes[k] is the running hash after entry snapIndex+1+k, for every
	// committed entry still in the log, so that Compact need not rehash.
	hashes []uint64
}

func (l *raftLog) lastIndex() uint64 { return l.snapIndex + uint64(len(l.ents)) }

func (l *raftLog) lastTerm() uint64 {
	if n := len(l.ents); n > 0 {
		return l.ents[n-1].Term
	}
	return l.snapTerm
}

// term returns the term of the entry at i, and false if i is compacted
// (below the snapshot) or beyond the last index.
func (l *raftLog) term(i uint64) (uint64, bool) {
	switch {
	case i == l.snapIndex:
		return l.snapTerm, true
	case i < l.snapIndex || i > l.lastIndex():
		return 0, false
	}
	return l.ents[i-l.snapIndex-1].Term, true
}

func (l *raftLog) matchTerm(i, t uint64) bool {
	lt, ok := l.term(i)
	return ok && lt == t
}

// entry returns the entry at i, which must be in (snapIndex, lastIndex].
func (l *raftLog) entry(i uint64) *Entry { return &l.ents[i-l.snapIndex-1] }

// slice returns entries [lo, hi); lo must be > snapIndex and hi <= last+1.
// The result is shared with the log.
func (l *raftLog) slice(lo, hi uint64) []Entry {
	if lo >= hi {
		return nil
	}
	off := l.snapIndex + 1
	return l.ents[lo-off : hi-off : hi-off]
}

// isUpToDate reports whether a log ending at (idx, t) is at least as
// up-to-date as ours (paper §5.4.1).
func (l *raftLog) isUpToDate(idx, t uint64) bool {
	lt := l.lastTerm()
	return t > lt || (t == lt && idx >= l.lastIndex())
}

// findConflict returns the index of the first entry of ents whose term
// differs from ours (or that we lack), or 0 if we already hold all of them.
func (l *raftLog) findConflict(ents []Entry) uint64 {
	for i := range ents {
		if !l.matchTerm(ents[i].Index, ents[i].Term) {
			return ents[i].Index
		}
	}
	return 0
}

// findConflictByTerm returns the largest index <= idx whose term is <= t,
// with that term. Both the follower (to build a reject hint) and the leader
// (to skip a whole term of mismatching entries) use it for fast
// backtracking. Compacted indexes stop the search at the snapshot.
func (l *raftLog) findConflictByTerm(idx, t uint64) (uint64, uint64) {
	if last := l.lastIndex(); idx > last {
		idx = last
	}
	for idx > l.snapIndex {
		et := l.entry(idx).Term
		if et <= t {
			return idx, et
		}
		idx--
	}
	if idx < l.snapIndex {
		return idx, 0
	}
	return idx, l.snapTerm
}

// append adds ents, which must directly follow lastIndex.
func (l *raftLog) append(ents ...Entry) {
	l.ents = append(l.ents, ents...)
}

// truncateAndAppend replaces everything from ents[0].Index on with ents.
// ents[0].Index must be in (committed, lastIndex+1].
func (l *raftLog) truncateAndAppend(ents []Entry) {
	first := ents[0].Index
	if first <= l.lastIndex() {
		keep := first - l.snapIndex - 1
		// Cap the slice so the append below reallocates instead of
		// overwriting entries that messages or a Ready may still reference.
		l.ents = l.ents[:keep:keep]
		if l.stabled >= first {
			l.stabled = first - 1
		}
	}
	l.ents = append(l.ents, ents...)
}

// unstable returns the entries not yet known to be durable.
func (l *raftLog) unstable() []Entry {
	if l.stabled >= l.lastIndex() {
		return nil
	}
	return l.slice(l.stabled+1, l.lastIndex()+1)
}

// stableTo records that entries up to (i, t) are durable, unless the log
// changed in the meantime so that i no longer holds term t.
func (l *raftLog) stableTo(i, t uint64) {
	if i > l.stabled && l.matchTerm(i, t) {
		l.stabled = i
	}
}

// commitTo advances the commit index to i (never backwards) and folds the
// newly committed entries into the running hash.
func (l *raftLog) commitTo(i uint64) bool {
	if i <= l.committed {
		return false
	}
	if last := l.lastIndex(); i > last {
		i = last
	}
	for j := l.committed + 1; j <= i; j++ {
		l.hash = hashEntry(l.hash, l.entry(j))
		l.hashes = append(l.hashes, l.hash)
	}
	l.committed = i
	return true
}

// nextCommitted returns the committed entries not yet handed out.
func (l *raftLog) nextCommitted() []Entry {
	lo := l.applying + 1
	if lo <= l.snapIndex {
		lo = l.snapIndex + 1
	}
	if lo > l.committed {
		return nil
	}
	return l.slice(lo, l.committed+1)
}

func (l *raftLog) hasNextCommitted() bool {
	return l.committed > l.applying && l.committed > l.snapIndex
}

// restore replaces the whole log with snapshot s (received from a leader).
func (l *raftLog) restore(s *Snapshot) {
	l.snapIndex, l.snapTerm = s.Index, s.Term
	l.snapshot = s
	l.pendingSnap = s
	l.ents = nil
	l.hashes = nil
	l.stabled = s.Index
	l.committed = s.Index
	l.applying = s.Index
	l.hash = s.LogHash
}

// compact discards entries up to and including i, recording snapshot s.
func (l *raftLog) compact(s *Snapshot) {
	l.ents = l.ents[s.Index-l.snapIndex:]
	l.hashes = l.hashes[s.Index-l.snapIndex:]
	if len(l.ents) == 0 {
		l.ents = nil // release the old backing array
	}
	if len(l.hashes) == 0 {
		l.hashes = nil
	}
	l.snapIndex, l.snapTerm = s.Index, s.Term
	l.snapshot = s
}

// hashAt returns the running hash after entry i (snapIndex <= i <= committed).
func (l *raftLog) hashAt(i uint64) uint64 {
	if i > l.snapIndex {
		return l.hashes[i-l.snapIndex-1]
	}
	if l.snapshot != nil {
		return l.snapshot.LogHash
	}
	return fnvOffset
}

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// hashEntry folds (index, term, data) of e into the FNV-1a hash h, with the
// integers as 8 little-endian bytes each.
func hashEntry(h uint64, e *Entry) uint64 {
	for _, v := range [2]uint64{e.Index, e.Term} {
		for k := 0; k < 8; k++ {
			h ^= (v >> (8 * k)) & 0xff
			h *= fnvPrime
		}
	}
	for _, b := range e.Data {
		h ^= uint64(b)
		h *= fnvPrime
	}
	return h
}
