package kvload

import (
	"slices"
	"strconv"
)

// GroupSize is how many keys a multi-key operation (a txn, a range read)
// spans: the keys, in key order, are cut into groups of GroupSize, and a
// multi-key operation stays within one group. Linearizability is checked
// per connected component of keys, so groups keep the components small
// (as small as etcd's own robustness tests keep their key count).
const GroupSize = 3

// keyspace is a client's keys, "k0" to "k<n-1>", and their groups.
type keyspace struct {
	keys   []string   // by number
	groups [][]string // consecutive keys in key (string) order
	group  []int      // the group of each key, by number
}

// newKeyspace names n keys and cuts them into groups of keys consecutive
// in string order ("k0" < "k1" < "k10" < "k2"), so that a group's range,
// from its first key to the next group's, holds exactly its own keys.
func newKeyspace(n int) keyspace {
	ks := keyspace{group: make([]int, n)}
	for i := range n {
		ks.keys = append(ks.keys, "k"+strconv.Itoa(i))
	}
	sorted := slices.Clone(ks.keys)
	slices.Sort(sorted)
	for i := 0; i < n; i += GroupSize {
		ks.groups = append(ks.groups, sorted[i:min(i+GroupSize, n)])
	}
	for i, k := range ks.keys {
		for g, grp := range ks.groups {
			if slices.Contains(grp, k) {
				ks.group[i] = g
			}
		}
	}
	return ks
}

// groupRange is the range read of group g: from its first key to the
// next group's first key, or to "l", the end of the "k" prefix.
func (ks keyspace) groupRange(g int) (key, end string) {
	if g+1 < len(ks.groups) {
		return ks.groups[g][0], ks.groups[g+1][0]
	}
	return ks.groups[g][0], "l"
}
