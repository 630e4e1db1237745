package mvcc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewFromKVs: the store holds exactly the given keys at the given
// revision and compact revision (keys of one txn get sub-revisions in key
// order), and refuses versions it cannot hold.
func TestNewFromKVs(t *testing.T) {
	kvs := []KeyValue{
		{Key: []byte("b"), Value: []byte("2"), CreateRevision: 3, ModRevision: 5, Version: 2},
		{Key: []byte("a"), Value: []byte("1"), CreateRevision: 5, ModRevision: 5, Version: 1},
	}
	s, err := NewFromKVs(kvs, 9, 9)
	require.NoError(t, err)
	require.Equal(t, int64(9), s.Rev())
	require.Equal(t, int64(9), s.CompactRev())
	res, err := s.Range([]byte{0}, []byte{0}, RangeOptions{})
	require.NoError(t, err)
	require.Equal(t, []KeyValue{kvs[1], kvs[0]}, res.KVs)
	_, err = s.Range([]byte("a"), nil, RangeOptions{Rev: 8})
	require.ErrorIs(t, err, ErrCompacted)
	p, err := s.Put([]byte("c"), []byte("3"), PutOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(10), p.Rev)

	bad := []struct {
		name      string
		kvs       []KeyValue
		rev, comp int64
	}{
		{"key above revision", kvs, 4, 4},
		{"compaction above revision", kvs, 9, 10},
		{"duplicate key", append(kvs, kvs[0]), 9, 9},
		{"empty key", []KeyValue{{ModRevision: 1, CreateRevision: 1, Version: 1}}, 2, 2},
		{"created after modified", []KeyValue{{Key: []byte("x"), CreateRevision: 3, ModRevision: 2, Version: 1}}, 4, 4},
	}
	for _, tt := range bad {
		_, err := NewFromKVs(tt.kvs, tt.rev, tt.comp)
		require.ErrorIs(t, err, ErrInvalidSnapshot, tt.name)
	}
}
