package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestLatenciesPercentilesAreTheSliceOnes: on random latencies (narrow
// ranges, so that values repeat, and wide ones, negatives included),
// added with merges and percentile queries at random points between
// them, latencies' percentiles equal percentile over the []float64 of
// every value/1e6 that Traffic used to keep, for p50, p99 and any q.
func TestLatenciesPercentilesAreTheSliceOnes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l latencies
		var xs []float64
		width := rapid.SampledFrom([]int64{1, 10, 1000, 5e9, 1 << 62}).Draw(t, "width")
		lo := rapid.Int64Range(-1000, 1e9).Draw(t, "lo")
		n := rapid.IntRange(0, 300).Draw(t, "n")
		for i := range n {
			v := lo + rapid.Int64Range(0, width).Draw(t, "v")
			l.add(v)
			xs = append(xs, float64(v)/1e6)
			if rapid.IntRange(0, 9).Draw(t, "merge") == 0 {
				l.merge()
			}
			if i%37 == 0 {
				require.Equal(t, percentile(xs, 0.5), l.percentileMs(0.5))
			}
		}
		require.Equal(t, len(xs), l.len())
		for _, q := range []float64{0.5, 0.99, rapid.Float64Range(0, 1).Draw(t, "q")} {
			require.Equal(t, percentile(xs, q), l.percentileMs(q), "q=%v", q)
		}
	})
}

// TestLatenciesExtremes: the lowest and highest int64 survive packing.
func TestLatenciesExtremes(t *testing.T) {
	var l latencies
	for _, v := range []int64{1<<63 - 1, -1 << 63, 0, 1<<63 - 1} {
		l.add(v)
	}
	require.Equal(t, float64(-1<<63)/1e6, l.percentileMs(0))
	require.Equal(t, float64(1<<63-1)/1e6, l.percentileMs(1))
	require.Equal(t, 3, l.distinct)
}

// TestLatenciesMemoryFollowsDistinctValues: a million latencies among
// 1000 distinct values (nanoseconds) take a few kilobytes packed, where
// the []float64 took 8 MB, and no more than 1000 would.
func TestLatenciesMemoryFollowsDistinctValues(t *testing.T) {
	var few, many latencies
	for i := range 1_000_000 {
		many.add(int64(2_000_000 + 997*(i%1000)))
	}
	for i := range 1000 {
		few.add(int64(2_000_000 + 997*i))
	}
	many.merge()
	few.merge()
	require.Equal(t, 1_000_000, many.len())
	require.Equal(t, 1000, many.distinct)
	require.LessOrEqual(t, len(many.packed), len(few.packed)+2*1000, "the counts take at most 2 more bytes a value")
	require.Less(t, len(many.packed), 8000)
	require.Less(t, cap(many.tail), 2*minMergeTail)
}
