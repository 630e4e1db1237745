package checks

import (
	"sort"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// addKey adds a key that changed for the first time to the sorted keys.
func (h *committedHistory) addKey(k string) {
	i := sort.SearchStrings(h.keys, k)
	h.keys = append(h.keys, "")
	copy(h.keys[i+1:], h.keys[i:])
	h.keys[i] = k
}

// stateAt returns key's committed version at revision r: its last put at
// or before r, or false if it did not exist then (never written, or
// deleted since).
func (h *committedHistory) stateAt(key string, r int64) (etcdtrace.Change, bool) {
	l := h.byKey[key]
	i := sort.Search(len(l), func(i int) bool { return l[i] > r }) - 1
	if i < 0 {
		return etcdtrace.Change{}, false
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
