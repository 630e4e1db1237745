package etcd

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
)

// TestStateSnapshotRoundTrip: a member snapshot carries the whole
// de-duplication table (every client's highest applied request) with the
// store, so that a member restored from it still refuses a late duplicate
// of any client's request; a restore replaces the table it had.
func TestStateSnapshotRoundTrip(t *testing.T) {
	src := &member{dedup: map[string]uint64{"client-1": 7, "client-2": 3, "client-3": 12}, store: mvcc.New()}
	_, err := src.store.Put([]byte("k"), []byte("v"), mvcc.PutOptions{})
	require.NoError(t, err)

	dst := &member{dedup: map[string]uint64{"stale": 99}, store: mvcc.New()}
	require.NoError(t, dst.restoreState(src.encodeState()))
	require.Equal(t, src.dedup, dst.dedup)
	require.Equal(t, src.store.Hash(), dst.store.Hash())

	require.ErrorIs(t, dst.restoreState([]byte("not a snapshot")), errBadSnapshot)
	require.Equal(t, src.dedup, dst.dedup, "a refused snapshot changes nothing")
}
