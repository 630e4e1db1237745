package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
)

// Decoded is a memo of the objects the API server replicas of one world
// decoded into their watch caches. Every replica's cache decodes every
// write it sees from etcd; with a shared memo, the first replica to see a
// key's value at a revision decodes it, and the others take the same
// object, which a watch cache never changes (the cache hands out copies).
// An entry is used only for byte-identical stored bytes at the same
// revision, so a replica gets exactly the object it would have decoded
// itself, even when members disagree on a revision's value. It holds one
// entry per key, the latest decoded.
//
// It is a performance device only: the trace does not change with it. One
// memo belongs to one world and is used only from the world's event loop.
type Decoded struct {
	m map[string]decodedValue
}

// decodedValue is one key's latest decoded value.
type decodedValue struct {
	rev   int64
	value string // the stored bytes
	obj   model.Object
}

// NewDecoded returns an empty memo for the replicas of one world.
func NewDecoded() *Decoded { return &Decoded{m: map[string]decodedValue{}} }

// decode is decodeValue through the memo; the object must not be changed.
func (d *Decoded) decode(kv mvcc.KeyValue) (model.Object, error) {
	if d == nil {
		return decodeValue(kv)
	}
	e, ok := d.m[string(kv.Key)]
	if ok && e.rev == kv.ModRevision && e.value == string(kv.Value) {
		return e.obj, nil
	}
	obj, err := decodeValue(kv)
	if err != nil {
		return nil, err
	}
	if !ok || kv.ModRevision >= e.rev {
		d.m[string(kv.Key)] = decodedValue{rev: kv.ModRevision, value: string(kv.Value), obj: obj}
	}
	return obj, nil
}

// forget drops key's entry once the key is deleted at rev.
func (d *Decoded) forget(key string, rev int64) {
	if d == nil {
		return
	}
	if e, ok := d.m[key]; ok && e.rev < rev {
		delete(d.m, key)
	}
}
