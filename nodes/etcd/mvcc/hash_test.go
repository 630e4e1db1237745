package mvcc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHashCoversWhatEtcdKeeps: HashKV covers what etcd's HashKV covers:
// every version and tombstone after the compact revision, and the versions
// compaction kept, but no tombstone at or below the compact revision
// (etcd's keep set leaves them out). So two stores whose histories differ
// only in what compaction removed hash the same, and two that differ in one
// tombstone after the compact revision do not.
func TestHashCoversWhatEtcdKeeps(t *testing.T) {
	compactedAway := func(key string) *Store {
		s := New()
		put(t, s, key, "1")
		del(t, s, key, "") // a tombstone at the compact revision
		tomb := s.Rev()
		put(t, s, "c", "x")
		require.NoError(t, s.Compact(tomb))
		return s
	}
	require.Equal(t, compactedAway("a").Hash(), compactedAway("b").Hash(),
		"a tombstone at the compact revision, and the version it ended, are not hashed")

	deletedAfter := func(key string) *Store {
		s := New()
		put(t, s, "a", "1")
		require.NoError(t, s.Compact(put(t, s, "b", "1")))
		del(t, s, key, "") // a tombstone after the compact revision
		return s
	}
	require.NotEqual(t, deletedAfter("a").Hash(), deletedAfter("b").Hash(),
		"a tombstone after the compact revision is hashed")
}
