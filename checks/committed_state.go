package checks

import (
	"sort"

	"github.com/kubesim/kubesim/sim"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// addKey adds a key that changed for the first time to the sorted keys.
func (h *committedHistory) addKey(k string) {
	i := sort.SearchStrings(h.keys, k)
	h.keys = append(h.keys, "")
	copy(h.keys[i+1:], h.keys[i:])
	h.keys[i] = k
}

// removeKey removes a key from the sorted keys.
func (h *committedHistory) removeKey(k string) {
	if i := sort.SearchStrings(h.keys, k); i < len(h.keys) && h.keys[i] == k {
		h.keys = append(h.keys[:i], h.keys[i+1:]...)
	}
}

// stateAt returns key's committed version at revision r: its last put at
// or before r, or false if it did not exist then (never written, or
// deleted since). Below base, after a fold, it answers as at base.
func (h *committedHistory) stateAt(key string, r int64) (etcdtrace.Change, bool) {
	l := h.byKey[key]
	i := sort.Search(len(l), func(i int) bool { return l[i] > r }) - 1
	if i < 0 {
		c, ok := h.floor[key]
		return c, ok
	}
	for _, c := range h.at(l[i]) {
		if c.Key == key {
			return c, c.Type == etcdtrace.ChangePut
		}
	}
	return etcdtrace.Change{}, false
}

// rangeAt returns the committed keys of kr at revision r, in key order.
func (h *committedHistory) rangeAt(kr keyRange, r int64) []etcdtrace.Change {
	var out []etcdtrace.Change
	for i := sort.SearchStrings(h.keys, kr.key); i < len(h.keys) && kr.contains(h.keys[i]); i++ {
		if c, ok := h.stateAt(h.keys[i], r); ok {
			out = append(out, c)
		}
	}
	return out
}

// fold forgets the history at or below revision f, but for each key's
// latest version there: afterwards stateAt and rangeAt answer exactly at
// f and above, at and matching answer nothing at or below f, and
// eachMatching starts above f. Its owner folds only below every revision
// a question may still ask about. f is capped at the highest revision a
// member reached (maxRev), above which no revision is defined yet.
func (h *committedHistory) fold(f int64) {
	f = min(f, h.maxRev, h.top())
	if f <= h.base {
		return
	}
	n := f - h.base
	var touched []string
	for _, cs := range h.revs[:n] {
		for _, c := range cs {
			if c.Type == etcdtrace.ChangePut {
				h.floor[c.Key] = c
			} else {
				delete(h.floor, c.Key)
			}
			touched = append(touched, c.Key)
		}
	}
	for _, k := range touched {
		l, ok := h.byKey[k]
		if !ok {
			continue // already trimmed
		}
		i := sort.Search(len(l), func(i int) bool { return l[i] > f })
		switch _, live := h.floor[k]; {
		case i < len(l):
			h.byKey[k] = append([]int64(nil), l[i:]...)
		case live:
			h.byKey[k] = nil
		default:
			delete(h.byKey, k)
			h.removeKey(k)
		}
	}
	h.revs = append([][]etcdtrace.Change(nil), h.revs[n:]...)
	h.base = f
}

// minCompact is the lowest compaction revision of the members that
// applied an entry (0 when none did): no member serves a watch or a read
// below it.
func (h *committedHistory) minCompact() int64 {
	m := int64(-1)
	for _, name := range sim.SortedKeys(h.compact) {
		if c := h.compact[name]; m < 0 || c < m {
			m = c
		}
	}
	return max(m, 0)
}
