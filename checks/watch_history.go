package checks

import (
	"sort"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// keyRange is a watch's key range in etcd's conventions: End "" is the
// single key Key, End "\x00" every key >= Key, anything else [Key, End).
type keyRange struct {
	key, end string
}

// contains reports whether k is in the range.
func (r keyRange) contains(k string) bool {
	switch r.end {
	case "":
		return k == r.key
	case "\x00":
		return k >= r.key
	}
	return k >= r.key && k < r.end
}

// single reports whether the range is one key.
func (r keyRange) single() bool { return r.end == "" }

// committedHistory is the store's change history as Apply events reveal
// it: the first Apply seen with changes at a revision defines that
// revision's changes (all members apply the same entries when Raft is
// safe, which the raft-safety check verifies).
//
// Its owner may fold it (fold) up to a revision no question can go below
// any more: from then on it keeps, of the revisions at or below the fold,
// only each key's latest version there (as etcd keeps after a compaction),
// so that what it holds follows the live keys and the history above the
// fold rather than the run's length.
type committedHistory struct {
	// revs[i] are the changes at revision base+1+i; nil: no change known.
	revs   [][]etcdtrace.Change
	byKey  map[string][]int64 // ascending revisions above base at which a key changed
	maxRev int64              // highest revision any member reached
	// compact is each member's latest compaction revision, for every
	// member that applied an entry (0: none yet).
	compact map[string]int64
	known   int      // revisions with changes, folded ones included
	keys    []string // every key in floor or in byKey, sorted
	// base is the revision folded to (0: none); floor is each key's
	// latest version at base, for the keys that existed there.
	base  int64
	floor map[string]etcdtrace.Change
}

func newCommittedHistory() committedHistory {
	return committedHistory{byKey: map[string][]int64{}, compact: map[string]int64{}, floor: map[string]etcdtrace.Change{}}
}

// apply records an Apply event.
func (h *committedHistory) apply(d *etcdtrace.Apply) {
	h.maxRev = max(h.maxRev, d.Rev)
	if c, ok := h.compact[d.Member]; !ok || d.Compact > c {
		h.compact[d.Member] = d.Compact
	}
	if len(d.Changes) == 0 || d.Rev <= 0 {
		return
	}
	// An entry's changes share one revision, d.Rev; should they not (the
	// watch-guarantees check reports it), each run of one revision is
	// recorded at its own.
	for i := 0; i < len(d.Changes); {
		j := i + 1
		for j < len(d.Changes) && d.Changes[j].ModRev == d.Changes[i].ModRev {
			j++
		}
		h.record(d.Changes[i].ModRev, d.Changes[i:j])
		i = j
	}
}

// record defines revision r's changes, unless an earlier Apply did (or r
// is folded).
func (h *committedHistory) record(r int64, cs []etcdtrace.Change) {
	if r <= h.base {
		return
	}
	i := r - h.base - 1
	if i >= int64(len(h.revs)) {
		grown := make([][]etcdtrace.Change, max(2*int64(len(h.revs)), i+1, 64))
		copy(grown, h.revs)
		h.revs = grown
	}
	if h.revs[i] != nil {
		return
	}
	h.revs[i] = append([]etcdtrace.Change(nil), cs...)
	h.known++
	for i := range cs {
		k := cs[i].Key
		l, ok := h.byKey[k]
		if !ok {
			h.addKey(k)
		}
		if len(l) == 0 || l[len(l)-1] < r {
			h.byKey[k] = append(l, r)
		}
	}
}

// top is the highest revision revs can hold.
func (h *committedHistory) top() int64 { return h.base + int64(len(h.revs)) }

// at returns the changes at revision r (nil when none are known, or r is
// folded).
func (h *committedHistory) at(r int64) []etcdtrace.Change {
	if r <= h.base || r > h.top() {
		return nil
	}
	return h.revs[r-h.base-1]
}

// matching appends to dst the changes at revision r whose key is in kr.
func (h *committedHistory) matching(dst []etcdtrace.Change, r int64, kr keyRange) []etcdtrace.Change {
	for _, c := range h.at(r) {
		if kr.contains(c.Key) {
			dst = append(dst, c)
		}
	}
	return dst
}

// eachMatching calls fn for every revision in [from, to] with changes in
// kr, in ascending order, with those changes (none at or below base).
func (h *committedHistory) eachMatching(from, to int64, kr keyRange, fn func(r int64, cs []etcdtrace.Change)) {
	from = max(from, h.base+1)
	to = min(to, h.top())
	if from > to {
		return
	}
	var buf []etcdtrace.Change
	if kr.single() {
		l := h.byKey[kr.key]
		for i := sort.Search(len(l), func(i int) bool { return l[i] >= from }); i < len(l) && l[i] <= to; i++ {
			buf = h.matching(buf[:0], l[i], kr)
			fn(l[i], buf)
		}
		return
	}
	for r := from; r <= to; r++ {
		if buf = h.matching(buf[:0], r, kr); len(buf) > 0 {
			fn(r, buf)
		}
	}
}
