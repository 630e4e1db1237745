package mvcc

import (
	"sort"
	"unsafe"
)

// record is one revision of one key: a put, or a deletion tombstone.
// It plays the part of a bolt entry keyed by (main, sub) in etcd.
type record struct {
	main    int64
	sub     int64
	tomb    bool
	value   string
	create  int64
	version int64
	lease   int64
}

// keyHistory is every retained revision of one key, oldest first. It plays the
// part of etcd's keyIndex (its generations flattened into one list).
type keyHistory struct {
	key  string
	recs []record
}

// at returns the index of the last record with main revision <= rev, or -1.
func (h *keyHistory) at(rev int64) int {
	return sort.Search(len(h.recs), func(i int) bool { return h.recs[i].main > rev }) - 1
}

// liveAt returns the version of the key visible at rev, if the key existed then.
func (h *keyHistory) liveAt(rev int64) (record, bool) {
	i := h.at(rev)
	if i < 0 || h.recs[i].tomb {
		return record{}, false
	}
	return h.recs[i], true
}

// from returns the index of the first record with main revision >= rev.
func (h *keyHistory) from(rev int64) int {
	return sort.Search(len(h.recs), func(i int) bool { return h.recs[i].main >= rev })
}

// kv turns a put record into the KeyValue a client sees.
func (h *keyHistory) kv(r record, keysOnly bool) KeyValue {
	kv := KeyValue{
		Key:            []byte(h.key),
		CreateRevision: r.create,
		ModRevision:    r.main,
		Version:        r.version,
		Lease:          r.lease,
	}
	if !keysOnly && r.value != "" {
		kv.Value = []byte(r.value)
	}
	return kv
}

// event turns a record into the watch event it stands for. A tombstone gives a
// DELETE whose KeyValue has only the key and the deletion revision, as etcd.
// Unlike a read's KeyValue, an event's Key and Value are the store's own
// bytes, not copies: see Event.
func (h *keyHistory) event(r record) Event {
	kv := KeyValue{Key: readOnlyBytes(h.key), ModRevision: r.main}
	if r.tomb {
		return Event{Type: EventDelete, Kv: kv}
	}
	kv.CreateRevision, kv.Version, kv.Lease = r.create, r.version, r.lease
	if r.value != "" {
		kv.Value = readOnlyBytes(r.value)
	}
	return Event{Type: EventPut, Kv: kv}
}

// readOnlyBytes is s's bytes without a copy; they must never be written.
func readOnlyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// keyspace is every key with retained history, sorted by key.
type keyspace struct {
	hist []*keyHistory
}

// find returns the position of key, and whether it is there.
func (ks *keyspace) find(key string) (int, bool) {
	i := sort.Search(len(ks.hist), func(i int) bool { return ks.hist[i].key >= key })
	return i, i < len(ks.hist) && ks.hist[i].key == key
}

// get returns the history of key, or nil.
func (ks *keyspace) get(key string) *keyHistory {
	if i, ok := ks.find(key); ok {
		return ks.hist[i]
	}
	return nil
}

// getOrCreate returns the history of key, adding an empty one if needed.
func (ks *keyspace) getOrCreate(key string) *keyHistory {
	i, ok := ks.find(key)
	if ok {
		return ks.hist[i]
	}
	h := &keyHistory{key: key}
	ks.hist = append(ks.hist, nil)
	copy(ks.hist[i+1:], ks.hist[i:])
	ks.hist[i] = h
	return h
}

// span returns the histories whose keys fall in r, in key order.
func (ks *keyspace) span(r keyRange) []*keyHistory {
	lo, _ := ks.find(r.start)
	hi := lo
	for hi < len(ks.hist) && !r.afterEnd(ks.hist[hi].key) {
		hi++
	}
	return ks.hist[lo:hi]
}
