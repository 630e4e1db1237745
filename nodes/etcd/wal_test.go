package etcd

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/raft"
)

// TestSnapshotRecordInPlace: the snapshot record built around the state in
// place is byte for byte encodeSnapshot's, shares the state's bytes, and
// decodes back to the snapshot; a snapshot whose Data is elsewhere gets
// the copy.
func TestSnapshotRecordInPlace(t *testing.T) {
	store := mvcc.New()
	for _, kv := range [][2]string{{"a", "1"}, {"b", "22"}, {"a", "333"}} {
		_, err := store.Put([]byte(kv[0]), []byte(kv[1]), mvcc.PutOptions{})
		require.NoError(t, err)
	}
	m := &member{store: store, dedup: map[string]uint64{"client-1": 7}}
	buf := m.encodeStateAt(snapshotRecordRoom, sealSize)
	state := buf[snapshotRecordRoom:]
	require.Equal(t, m.encodeState(), state)
	cs := raft.ConfState{Voters: []uint64{1, 2, 3}, Learners: []uint64{9}}
	s := &raft.Snapshot{Index: 40, Term: 3, ConfState: cs, Data: state, LogHash: 0xfeedbeef}

	rec := encodeSnapshotRecord(s, buf)
	require.Equal(t, encodeSnapshot(s), rec)
	require.Same(t, &state[0], &rec[len(rec)-sealSize-len(state)], "the record wraps the state in place")
	kind, body, err := unseal(rec)
	require.NoError(t, err)
	require.Equal(t, recSnapshot, kind)
	got, err := decodeSnapshot(body)
	require.NoError(t, err)
	require.Equal(t, s, got)

	elsewhere := *s
	elsewhere.Data = append([]byte(nil), state...)
	require.Equal(t, encodeSnapshot(&elsewhere), encodeSnapshotRecord(&elsewhere, buf), "not the buffer's state: a copy")
}
