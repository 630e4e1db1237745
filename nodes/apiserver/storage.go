package apiserver

import (
	"bytes"
	"errors"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// encodeObject returns obj's stored form: model.Encode with resourceVersion
// cleared, as the real etcd3 store writes it (the revision is the key's).
func encodeObject(obj model.Object) ([]byte, error) {
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	data, err := model.Encode(obj)
	m.ResourceVersion = rv
	return data, err
}

// decodeKV decodes a stored object for a read the replica serves, with its
// resourceVersion set: when its watch cache
// holds that very revision of the key, it copies the cached object instead
// of parsing the same bytes again (the cache decoded them once already).
func (s *Server) decodeKV(kv mvcc.KeyValue) (model.Object, error) {
	if c := s.cacheOfKey(kv.Key); c != nil {
		if obj, ok := c.store[string(kv.Key)]; ok && obj.GetObjectMeta().ResourceVersion == formatRV(kv.ModRevision) {
			return obj.DeepCopyObject(), nil
		}
	}
	return decodeValue(kv)
}

// cacheOfKey returns the watch cache of the resource a storage key
// ("/registry/<resource>/..." or, for a custom kind,
// "/registry/<group>/<plural>/...") belongs to, or nil.
func (s *Server) cacheOfKey(key []byte) *cache {
	rest, ok := bytes.CutPrefix(key, []byte(registryPrefix))
	if !ok {
		return nil
	}
	res, rest, ok := bytes.Cut(rest, []byte("/"))
	if !ok {
		return nil
	}
	if c := s.caches[string(res)]; c != nil && c.res.Custom == nil {
		return c
	}
	plural, _, ok := bytes.Cut(rest, []byte("/"))
	if c := s.caches[string(plural)]; ok && c != nil && c.res.Custom != nil && c.res.Group == string(res) {
		return c
	}
	return nil
}

// decodeValue parses a stored value and sets its resourceVersion.
func decodeValue(kv mvcc.KeyValue) (model.Object, error) {
	obj, err := model.Decode(kv.Value)
	if err != nil {
		return nil, err
	}
	obj.GetObjectMeta().ResourceVersion = formatRV(kv.ModRevision)
	return obj, nil
}

// etcdStatus maps an etcd client error to the status a client gets: 504
// when the write may or may not have happened, 503 when it certainly did
// not (no leader), 410 for a compacted revision.
func etcdStatus(err error) *apiwire.Status {
	switch {
	case errors.Is(err, mvcc.ErrCompacted):
		return gone("The resourceVersion for the provided list is too old: %v", err)
	case etcd.IsUnknownOutcome(err):
		return errStatus(504, apiwire.ReasonTimeout, "Timeout: request did not complete within the allowed duration: %v", err)
	}
	return errStatus(503, apiwire.ReasonServiceUnavailable, "etcd is unavailable: %v", err)
}

// txnPutIfMod is a Txn that puts value at key if its mod_revision is rev
// (rev 0: the key must not exist), and otherwise reads the key.
func txnPutIfMod(key string, rev int64, value []byte) mvcc.TxnRequest {
	target := mvcc.Compare{Key: []byte(key), Target: mvcc.CompareMod, Result: mvcc.CompareEqual, ModRevision: rev}
	if rev == 0 {
		target = mvcc.Compare{Key: []byte(key), Target: mvcc.CompareCreate, Result: mvcc.CompareEqual, CreateRevision: 0}
	}
	return mvcc.TxnRequest{
		Compares: []mvcc.Compare{target},
		Success:  []mvcc.Op{mvcc.OpPutOf([]byte(key), value, mvcc.PutOptions{})},
		Failure:  []mvcc.Op{mvcc.OpRangeOf([]byte(key), nil, mvcc.RangeOptions{})},
	}
}

// txnDeleteIfMod is a Txn that deletes key if its mod_revision is rev.
func txnDeleteIfMod(key string, rev int64) mvcc.TxnRequest {
	return mvcc.TxnRequest{
		Compares: []mvcc.Compare{{Key: []byte(key), Target: mvcc.CompareMod, Result: mvcc.CompareEqual, ModRevision: rev}},
		Success:  []mvcc.Op{mvcc.OpDeleteOf([]byte(key), nil, false)},
		Failure:  []mvcc.Op{mvcc.OpRangeOf([]byte(key), nil, mvcc.RangeOptions{})},
	}
}

// txnPut is an unconditional put, as a Txn (the LastWriteWins ablation).
func txnPut(key string, value []byte) mvcc.TxnRequest {
	return mvcc.TxnRequest{Success: []mvcc.Op{mvcc.OpPutOf([]byte(key), value, mvcc.PutOptions{})}}
}
