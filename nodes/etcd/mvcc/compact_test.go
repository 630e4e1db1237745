package mvcc

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompactErrors(t *testing.T) {
	s := New()
	put(t, s, "k", "v") // 2
	put(t, s, "k", "v") // 3
	cases := []struct {
		rev        int64
		want       error
		wantCompRv int64
	}{
		{4, ErrFutureRev, -1},
		{2, nil, 2},
		{2, ErrCompacted, 2},
		{1, ErrCompacted, 2},
		{3, nil, 3}, // compacting at the current revision is allowed
	}
	for _, c := range cases {
		err := s.Compact(c.rev)
		if c.want == nil {
			assert.NoError(t, err, "compact %d", c.rev)
		} else {
			assert.ErrorIs(t, err, c.want, "compact %d", c.rev)
		}
		assert.Equal(t, c.wantCompRv, s.CompactRev())
	}
	var ce *CompactedError
	require.True(t, errors.As(s.Compact(3), &ce))
	assert.Equal(t, int64(3), ce.CompactRev)
}

func TestCompactKeepsLatestVersionAtOrBeforeRev(t *testing.T) {
	s := New()
	put(t, s, "a", "1") // 2
	put(t, s, "a", "2") // 3
	put(t, s, "b", "1") // 4
	del(t, s, "b", "")  // 5
	put(t, s, "c", "1") // 6
	del(t, s, "c", "")  // 7
	put(t, s, "a", "3") // 8
	require.NoError(t, s.Compact(7))

	r, err := s.Range(b("a"), b("\x00"), RangeOptions{Rev: 7})
	require.NoError(t, err)
	assert.Equal(t, []KeyValue{kv("a", "2", 2, 3, 2)}, r.KVs, "reads at the compact revision still work")
	r, err = s.Range(b("a"), b("\x00"), RangeOptions{})
	require.NoError(t, err)
	assert.Equal(t, []KeyValue{kv("a", "3", 2, 8, 3)}, r.KVs)

	assert.Equal(t, []string{"a", "c"}, histKeys(s), "b's old tombstone is gone, c's tombstone at the compact revision stays")
	assert.Len(t, s.ks.get("a").recs, 2)

	require.NoError(t, s.Compact(8))
	assert.Equal(t, []string{"a"}, histKeys(s))
	assert.Len(t, s.ks.get("a").recs, 1)
	got, _ := get(t, s, "a", 0)
	assert.Equal(t, kv("a", "3", 2, 8, 3), got, "create revision and version survive compaction")
	put(t, s, "a", "4")
	got, _ = get(t, s, "a", 0)
	assert.Equal(t, kv("a", "4", 2, 9, 4), got)
}

func TestPeriodicCompactionBoundsMemory(t *testing.T) {
	s := New()
	for i := 0; i < 5000; i++ {
		k := string(rune('a' + i%10))
		if i%7 == 3 {
			del(t, s, k, "")
		} else {
			put(t, s, k, "value")
		}
		if i%100 == 99 {
			require.NoError(t, s.Compact(s.Rev()-50))
		}
	}
	total := 0
	for _, h := range s.ks.hist {
		total += len(h.recs)
	}
	assert.LessOrEqual(t, len(s.ks.hist), 10)
	assert.LessOrEqual(t, total, 200, "only the window since the last compaction is retained")
}

// histKeys lists the keys that still have history.
func histKeys(s *Store) []string {
	out := []string{}
	for _, h := range s.ks.hist {
		out = append(out, h.key)
	}
	return out
}
