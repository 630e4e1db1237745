package mvcc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// b turns a string into bytes, nil for "".
func b(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// put writes k=v and returns the header revision.
func put(t *testing.T, s *Store, k, v string) int64 {
	t.Helper()
	r, err := s.Put(b(k), b(v), PutOptions{})
	require.NoError(t, err)
	return r.Rev
}

// del deletes [k, end) and returns the number deleted.
func del(t *testing.T, s *Store, k, end string) int64 {
	t.Helper()
	r, err := s.DeleteRange(b(k), b(end), false)
	require.NoError(t, err)
	return r.Deleted
}

// get reads one key at rev; ok is false when missing.
func get(t *testing.T, s *Store, k string, rev int64) (KeyValue, bool) {
	t.Helper()
	r, err := s.Range(b(k), nil, RangeOptions{Rev: rev})
	require.NoError(t, err)
	if len(r.KVs) == 0 {
		return KeyValue{}, false
	}
	return r.KVs[0], true
}

// keys lists the keys of kvs.
func keys(kvs []KeyValue) []string {
	out := []string{}
	for _, kv := range kvs {
		out = append(out, string(kv.Key))
	}
	return out
}

// kv builds an expected KeyValue.
func kv(k, v string, create, mod, ver int64) KeyValue {
	return KeyValue{Key: b(k), Value: b(v), CreateRevision: create, ModRevision: mod, Version: ver}
}
