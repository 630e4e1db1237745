package mvcc

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted applies the same mixed workload to a store.
func scripted(t *testing.T, s *Store) {
	put(t, s, "a", "1")
	_, err := s.Put(b("b"), b("x"), PutOptions{Lease: 3})
	require.NoError(t, err)
	put(t, s, "a", "2")
	del(t, s, "b", "")
	put(t, s, "c", "")
	_, err = s.Txn(TxnRequest{Success: []Op{OpPutOf(b("d"), b("1"), PutOptions{}), OpDeleteOf(b("c"), nil, false)}})
	require.NoError(t, err)
	require.NoError(t, s.Compact(4))
	put(t, s, "a", "3")
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	src := New()
	scripted(t, src)
	snap := src.Snapshot()
	assert.Equal(t, snap, src.Snapshot(), "encoding is deterministic")

	dst := New()
	put(t, dst, "zzz", "junk")
	require.NoError(t, dst.Restore(snap))
	assert.Equal(t, src.Rev(), dst.Rev())
	assert.Equal(t, src.CompactRev(), dst.CompactRev())
	assert.Equal(t, src.Hash(), dst.Hash())
	assert.Equal(t, snap, dst.Snapshot())
	for rev := src.CompactRev(); rev <= src.Rev(); rev++ {
		want, err := src.Range(b("\x00"), b("\x00"), RangeOptions{Rev: rev})
		require.NoError(t, err)
		got, err := dst.Range(b("\x00"), b("\x00"), RangeOptions{Rev: rev})
		require.NoError(t, err)
		assert.Equal(t, want, got, "rev %d", rev)
	}
	_, err := dst.Range(b("a"), nil, RangeOptions{Rev: 3})
	assert.ErrorIs(t, err, ErrCompacted)

	// Both keep going identically.
	put(t, src, "e", "1")
	put(t, dst, "e", "1")
	assert.Equal(t, src.Snapshot(), dst.Snapshot())

	empty := New()
	require.NoError(t, dst.Restore(empty.Snapshot()))
	assert.Equal(t, int64(1), dst.Rev())
	assert.Equal(t, empty.Hash(), dst.Hash())
}

func TestRestoreRejectsGarbage(t *testing.T) {
	src := New()
	scripted(t, src)
	snap := src.Snapshot()
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad magic", append([]byte("nope!!"), snap[6:]...)},
		{"truncated", snap[:len(snap)-3]},
		{"trailing", append(append([]byte(nil), snap...), 0)},
	}
	for _, c := range cases {
		name := c.name
		s := New()
		put(t, s, "keep", "me")
		h := s.Hash()
		assert.ErrorIs(t, s.Restore(c.data), ErrInvalidSnapshot, name)
		assert.Equal(t, h, s.Hash(), "%s: a failed restore changes nothing", name)
	}
}

func TestHashEqualAcrossStoresFedTheSameOps(t *testing.T) {
	a, c := New(), New()
	scripted(t, a)
	scripted(t, c)
	assert.Equal(t, a.Hash(), c.Hash())
	ha, err := a.HashKV(5)
	require.NoError(t, err)
	hc, err := c.HashKV(5)
	require.NoError(t, err)
	assert.Equal(t, ha, hc)
	assert.Equal(t, int64(4), ha.CompactRevision)
	assert.Equal(t, int64(5), ha.Revision)

	put(t, c, "a", "4")
	assert.NotEqual(t, a.Hash(), c.Hash())
	hc2, err := c.HashKV(5)
	require.NoError(t, err)
	assert.Equal(t, ha, hc2, "a hash at a past revision ignores later writes")

	_, err = a.HashKV(4)
	assert.ErrorIs(t, err, ErrCompacted)
	_, err = a.HashKV(a.Rev() + 1)
	assert.ErrorIs(t, err, ErrFutureRev)

	d, e := New(), New()
	put(t, d, "k", "v")
	put(t, e, "k", "w")
	assert.NotEqual(t, d.Hash(), e.Hash(), "values are hashed")
	require.NoError(t, d.Compact(2))
	f := New()
	put(t, f, "k", "v")
	assert.NotEqual(t, d.Hash(), f.Hash(), "the compact revision is hashed")
}

// TestSnapshotAfterCompactingEverything: a store compacted at its current
// revision (nothing left to read below it) snapshots and restores like any
// other.
func TestSnapshotAfterCompactingEverything(t *testing.T) {
	s := New()
	put(t, s, "a", "1")
	require.NoError(t, s.Compact(s.Rev()))
	r := New()
	require.NoError(t, r.Restore(s.Snapshot()))
	require.Equal(t, s.Hash(), r.Hash())
	require.Equal(t, s.Rev(), r.CompactRev())
}

// TestSnapshotSizeExact: SnapshotSize is the exact length of the encoding
// (a longer guess would waste memory in every retained snapshot, a shorter
// one a reallocation), for stores with tombstones, leases, negative and
// large numbers.
func TestSnapshotSizeExact(t *testing.T) {
	s := New()
	require.Equal(t, len(s.Snapshot()), s.SnapshotSize())
	for i := 0; i < 300; i++ {
		k := fmt.Sprintf("key-%d", i%17)
		if i%5 == 4 {
			_, err := s.DeleteRange([]byte(k), nil, false)
			require.NoError(t, err)
			continue
		}
		_, err := s.Put([]byte(k), []byte(strings.Repeat("v", i*7)), PutOptions{Lease: int64(i * 1000003)})
		require.NoError(t, err)
	}
	require.NoError(t, s.Compact(100))
	got := s.Snapshot()
	require.Equal(t, len(got), s.SnapshotSize())
	require.Equal(t, len(got), cap(got), "one allocation, no slack")
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64} {
		require.Equal(t, len(binary.AppendVarint(nil, v)), varintLen(v), "%d", v)
		require.Equal(t, len(binary.AppendUvarint(nil, uint64(v))), uvarintLen(uint64(v)), "%d", v)
	}
}
