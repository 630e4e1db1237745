package mvcc

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
)

// TestIgnoreReadRevisionAblation: a read at a past revision returns each
// key as it was then; ablated, as it is now. The compaction check holds
// either way.
func TestIgnoreReadRevisionAblation(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		t.Run(fmt.Sprint(ablate), func(t *testing.T) {
			s := New()
			s.Ablations = ablation.When(ablate, ablation.IgnoreReadRevision)
			r2 := put(t, s, "k", "old")
			put(t, s, "k", "new")
			got, ok := get(t, s, "k", r2)
			require.True(t, ok)
			if ablate {
				assert.Equal(t, "new", string(got.Value), "ablated: the past is read from the present")
			} else {
				assert.Equal(t, kv("k", "old", r2, r2, 1), got)
			}
			require.NoError(t, s.Compact(r2+1))
			_, err := s.Range(b("k"), nil, RangeOptions{Rev: r2})
			assert.ErrorIs(t, err, ErrCompacted)
		})
	}
}

// TestTxnNotAtomicAblation: a txn's writes share one revision, and a
// watcher gets them in one response; ablated, each write has a revision
// and a response of its own.
func TestTxnNotAtomicAblation(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		t.Run(fmt.Sprint(ablate), func(t *testing.T) {
			s := New()
			s.Ablations = ablation.When(ablate, ablation.TxnNotAtomic)
			_, err := s.NewWatch(WatchRequest{Key: b("a"), End: b("z")})
			require.NoError(t, err)
			resp, err := s.Txn(TxnRequest{Success: []Op{
				OpPutOf(b("a"), b("1"), PutOptions{}), OpPutOf(b("b"), b("2"), PutOptions{}), OpRangeOf(b("a"), b("z"), RangeOptions{}),
			}})
			require.NoError(t, err)
			a, _ := get(t, s, "a", 0)
			bb, _ := get(t, s, "b", 0)
			resps := s.Drain()
			if ablate {
				assert.Equal(t, int64(3), resp.Rev, "ablated: two writes, two revisions")
				assert.Equal(t, []int64{2, 3}, []int64{a.ModRevision, bb.ModRevision})
				assert.Len(t, resps, 2, "one response per revision")
				return
			}
			assert.Equal(t, int64(2), resp.Rev)
			assert.Equal(t, []int64{2, 2}, []int64{a.ModRevision, bb.ModRevision})
			require.Len(t, resps, 1, "the txn's events in one response")
			assert.Len(t, resps[0].Events, 2)
			assert.Equal(t, []string{"a", "b"}, keys(resp.Responses[2].Range.KVs), "the txn's read sees its own writes")
		})
	}
}

// TestCompactedWatchSilentAblation: a watch from a compacted revision is
// canceled with the compact revision; ablated, it starts silently at the
// compact revision.
func TestCompactedWatchSilentAblation(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		t.Run(fmt.Sprint(ablate), func(t *testing.T) {
			s := New()
			s.Ablations = ablation.When(ablate, ablation.CompactedWatchSilent)
			put(t, s, "k", "1")
			r3 := put(t, s, "k", "2")
			put(t, s, "k", "3")
			require.NoError(t, s.Compact(r3))
			_, err := s.NewWatch(WatchRequest{Key: b("k"), StartRev: 2})
			require.NoError(t, err)
			resps := s.Drain()
			require.Len(t, resps, 1)
			if ablate {
				assert.False(t, resps[0].Canceled)
				assert.Equal(t, r3, resps[0].Events[0].Kv.ModRevision, "ablated: from the compact revision, revision 2 missed")
				return
			}
			assert.True(t, resps[0].Canceled)
			assert.Equal(t, r3, resps[0].CompactRevision)
		})
	}
}
