package checks

import (
	"sort"
	"strconv"
	"strings"
)

// kvRev is a revision the KV model knows exactly (known), or only bounds
// from below: the write that made it came after every write of revision
// up to lo, but its own answer (and so its revision) was never seen.
type kvRev struct {
	known int64 // the revision; 0 when unknown
	lo    int64 // when unknown: the revision is above lo
}

// revAt is a known revision, or, for r == 0, an unknown one above lo.
func revAt(r, lo int64) kvRev {
	if r != 0 {
		return kvRev{known: r}
	}
	return kvRev{lo: lo}
}

// fits reports whether an observed revision r (0: not recorded) can be
// this one.
func (v kvRev) fits(r int64) bool {
	switch {
	case r == 0:
		return true
	case v.known != 0:
		return r == v.known
	}
	return r > v.lo
}

// learn is the revision once r has been observed.
func (v kvRev) learn(r int64) kvRev {
	if r == 0 || v.known != 0 {
		return v
	}
	return kvRev{known: r}
}

// kvEntry is one present key of the KV model's state.
type kvEntry struct {
	key     string
	value   string
	version int64
	mod     kvRev
	create  kvRev
}

// kvState is the state of the keys of one component of a KV history (the
// keys its operations touch together): the present keys, sorted, and a
// lower bound on the revision of the last write linearized so far. A
// state is immutable: every change makes a new one, so porcupine may keep
// and compare states freely.
type kvState struct {
	ents []kvEntry
	rev  int64
}

// emptyKVState is the initial state: no key, no write.
var emptyKVState = &kvState{}

// find returns the position of key, and whether it is present.
func (s *kvState) find(key string) (int, bool) {
	i := sort.Search(len(s.ents), func(i int) bool { return s.ents[i].key >= key })
	return i, i < len(s.ents) && s.ents[i].key == key
}

// get returns key's entry, if present.
func (s *kvState) get(key string) (kvEntry, bool) {
	if i, ok := s.find(key); ok {
		return s.ents[i], true
	}
	return kvEntry{}, false
}

// clone returns a copy that the caller may change.
func (s *kvState) clone() *kvState {
	return &kvState{ents: append([]kvEntry(nil), s.ents...), rev: s.rev}
}

// set adds or replaces e in a state being built (never a shared one).
func (s *kvState) set(e kvEntry) {
	i, ok := s.find(e.key)
	if ok {
		s.ents[i] = e
		return
	}
	s.ents = append(s.ents, kvEntry{})
	copy(s.ents[i+1:], s.ents[i:])
	s.ents[i] = e
}

// remove deletes key from a state being built.
func (s *kvState) remove(key string) {
	if i, ok := s.find(key); ok {
		s.ents = append(s.ents[:i], s.ents[i+1:]...)
	}
}

// span returns the present keys in r, in key order.
func (s *kvState) span(r keyRange) []kvEntry {
	i := sort.Search(len(s.ents), func(i int) bool { return s.ents[i].key >= r.key })
	j := i
	for j < len(s.ents) && r.contains(s.ents[j].key) {
		j++
	}
	return s.ents[i:j]
}

// equalKVStates is KVModel's Equal.
func equalKVStates(a, b *kvState) bool {
	if a.rev != b.rev || len(a.ents) != len(b.ents) {
		return false
	}
	for i := range a.ents {
		if a.ents[i] != b.ents[i] {
			return false
		}
	}
	return true
}

// hashKVState is KVModel's Hash: FNV-1a over the keys, values and
// versions, without allocating.
func hashKVState(s *kvState) uint64 {
	h := uint64(14695981039346656037)
	mix := func(b byte) { h = (h ^ uint64(b)) * 1099511628211 }
	mixInt := func(v int64) {
		for i := 0; i < 8; i++ {
			mix(byte(v >> (8 * i)))
		}
	}
	mixInt(s.rev)
	for _, e := range s.ents {
		for i := 0; i < len(e.key); i++ {
			mix(e.key[i])
		}
		mix(0)
		for i := 0; i < len(e.value); i++ {
			mix(e.value[i])
		}
		mixInt(e.version)
	}
	return h
}

// describeKVState is KVModel's DescribeState: `<absent>` for a single
// absent key, else each present key with its value, version and
// revisions.
func describeKVState(s *kvState) string {
	if len(s.ents) == 0 {
		return "<absent>"
	}
	var b strings.Builder
	for i, e := range s.ents {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(s.ents) > 1 {
			b.WriteString(strconv.Quote(e.key) + "=")
		}
		b.WriteString(strconv.Quote(e.value) + " v" + strconv.FormatInt(e.version, 10))
		if e.mod.known != 0 {
			b.WriteString(" @" + strconv.FormatInt(e.mod.known, 10))
		}
	}
	return b.String()
}
