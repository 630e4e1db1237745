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
type committedHistory struct {
	revs   [][]etcdtrace.Change // indexed by revision; nil: no change known
	byKey  map[string][]int64   // ascending revisions at which a key changed
	maxRev int64                // highest revision any member reached
	// compact is each member's latest compaction revision.
	compact map[string]int64
	known   int      // revisions with changes
	keys    []string // every key that ever changed, sorted
}

func newCommittedHistory() committedHistory {
	return committedHistory{byKey: map[string][]int64{}, compact: map[string]int64{}}
}

// apply records an Apply event.
func (h *committedHistory) apply(d *etcdtrace.Apply) {
	h.maxRev = max(h.maxRev, d.Rev)
	if d.Compact > h.compact[d.Member] {
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

// record defines revision r's changes, unless an earlier Apply did.
func (h *committedHistory) record(r int64, cs []etcdtrace.Change) {
	if r <= 0 {
		return
	}
	if r >= int64(len(h.revs)) {
		grown := make([][]etcdtrace.Change, max(2*int64(len(h.revs)), r+1, 64))
		copy(grown, h.revs)
		h.revs = grown
	}
	if h.revs[r] != nil {
		return
	}
	h.revs[r] = append([]etcdtrace.Change(nil), cs...)
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

// at returns the changes at revision r (nil when none are known).
func (h *committedHistory) at(r int64) []etcdtrace.Change {
	if r <= 0 || r >= int64(len(h.revs)) {
		return nil
	}
	return h.revs[r]
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
// kr, in ascending order, with those changes.
func (h *committedHistory) eachMatching(from, to int64, kr keyRange, fn func(r int64, cs []etcdtrace.Change)) {
	from = max(from, 1)
	to = min(to, int64(len(h.revs))-1)
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
