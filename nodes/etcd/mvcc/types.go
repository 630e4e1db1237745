package mvcc

// KeyValue is one version of a key, as etcd's mvccpb.KeyValue.
type KeyValue struct {
	// Key is the key. Never empty in a stored version.
	Key []byte
	// Value is the value; nil when empty (proto3 does not tell nil from empty)
	// and in KeysOnly reads.
	Value []byte
	// CreateRevision is the revision of the put that last created the key.
	CreateRevision int64
	// ModRevision is the revision of the last change to the key.
	ModRevision int64
	// Version counts the puts since the key was created; 1 after creation, and
	// it restarts after a delete.
	Version int64
	// Lease is the lease ID attached to the key, 0 for none.
	Lease int64
}

// clone returns a deep copy, so that callers can never alias store memory.
func (kv KeyValue) clone() KeyValue {
	kv.Key = cloneBytes(kv.Key)
	kv.Value = cloneBytes(kv.Value)
	return kv
}

// cloneBytes copies b; empty input gives nil, as proto3 decoding does.
func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// RangeOptions are the mvcc-level options of a read.
type RangeOptions struct {
	// Rev is the revision to read at; 0 (or less) means the current revision.
	Rev int64
	// Limit caps the number of returned KeyValues; 0 or less means no limit.
	// Count still reports every match.
	Limit int64
	// CountOnly returns only Count, with no KeyValues.
	CountOnly bool
	// KeysOnly returns KeyValues without values.
	KeysOnly bool
}

// RangeResult is the answer to a read, as etcd's RangeResponse.
type RangeResult struct {
	// KVs are the matching live keys at the read revision, sorted by key,
	// at most Limit of them.
	KVs []KeyValue
	// Count is the number of matching keys, regardless of Limit.
	Count int64
	// More is true when Limit cut the result short (etcd's "more" flag).
	More bool
	// Rev is the header revision: the store's revision when the read ran.
	Rev int64
}

// PutOptions are the options of a put, as etcd's PutRequest.
type PutOptions struct {
	// Lease is the lease ID to attach; 0 for none. The store does not check
	// that the lease exists: that is the lessor's job.
	Lease int64
	// PrevKV asks for the previous version of the key in the result.
	PrevKV bool
	// IgnoreValue keeps the key's current value; the key must exist and the
	// request must carry no value.
	IgnoreValue bool
	// IgnoreLease keeps the key's current lease; the key must exist and the
	// request must carry no lease.
	IgnoreLease bool
}

// PutResult is the answer to a put.
type PutResult struct {
	// Rev is the header revision: the revision the put was written at.
	Rev int64
	// PrevKV is the previous version when PrevKV was asked and the key existed.
	PrevKV *KeyValue
}

// DeleteResult is the answer to a delete-range.
type DeleteResult struct {
	// Rev is the header revision: the new revision, or the unchanged current
	// revision when nothing was deleted.
	Rev int64
	// Deleted is the number of keys deleted.
	Deleted int64
	// PrevKVs are the deleted versions, when asked for.
	PrevKVs []KeyValue
}
