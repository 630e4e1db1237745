package metrics

import (
	"encoding/binary"
	"slices"
)

// latencies is a multiset of latencies in nanoseconds (the trace's
// resolution) whose nearest-rank percentiles in milliseconds are exactly
// those of percentile over the slice of every value/1e6, in memory that
// grows with the distinct values rather than with the values added: the
// distinct values, sorted, are packed as varint deltas, each followed by
// its count less one (about 2 bytes a distinct value when they are dense,
// against 8 to 16 for a growing []float64), and new values wait in a
// short unsorted tail until they are merged in.
type latencies struct {
	packed   []byte  // uvarint(value-previous as uint64), uvarint(count-1), ascending
	distinct int     // distinct values in packed
	n        int     // values in packed, with their multiplicity
	tail     []int64 // values added since the last merge, unsorted
}

// minMergeTail is the fewest values the tail holds before a merge; above
// it, the tail may reach a quarter of the distinct values, so that each
// merge costs a fraction of the values added since the last one.
const minMergeTail = 4096

// add adds one latency in nanoseconds.
func (l *latencies) add(ns int64) {
	l.tail = append(l.tail, ns)
	if len(l.tail) >= max(minMergeTail, l.distinct/4) {
		l.merge()
	}
}

// len returns the number of values added.
func (l *latencies) len() int { return l.n + len(l.tail) }

// key maps a value to a uint64 in the same order (the sign bit flipped).
func key(v int64) uint64 { return uint64(v) ^ 1<<63 }

// each calls fn with every distinct packed value, ascending, and its count.
func (l *latencies) each(fn func(v int64, count int)) {
	var prev uint64
	for b := l.packed; len(b) > 0; {
		d, n := binary.Uvarint(b)
		c, m := binary.Uvarint(b[n:])
		b = b[n+m:]
		prev += d
		fn(int64(prev^1<<63), int(c)+1)
	}
}

// merge sorts the tail into the packed values.
func (l *latencies) merge() {
	if len(l.tail) == 0 {
		return
	}
	slices.Sort(l.tail)
	out := make([]byte, 0, len(l.packed)+2*len(l.tail)+binary.MaxVarintLen64)
	var prev uint64
	distinct := 0
	emit := func(v int64, count int) {
		out = binary.AppendUvarint(out, key(v)-prev)
		out = binary.AppendUvarint(out, uint64(count-1))
		prev = key(v)
		distinct++
	}
	t := l.tail
	// pending is the last value read, not yet emitted, with its count.
	var pending int64
	count := 0
	push := func(v int64, c int) {
		if count > 0 && v == pending {
			count += c
			return
		}
		if count > 0 {
			emit(pending, count)
		}
		pending, count = v, c
	}
	l.each(func(v int64, c int) {
		for len(t) > 0 && t[0] <= v {
			push(t[0], 1)
			t = t[1:]
		}
		push(v, c)
	})
	for _, v := range t {
		push(v, 1)
	}
	emit(pending, count)
	l.n += len(l.tail)
	l.packed, l.distinct, l.tail = out, distinct, l.tail[:0]
}

// percentileMs returns the nearest-rank q-quantile of the values, in
// milliseconds, as percentile computes it over value/1e6 (0 when empty).
func (l *latencies) percentileMs(q float64) float64 {
	l.merge()
	if l.n == 0 {
		return 0
	}
	i := rank(l.n, q)
	var at int64
	seen, found := 0, false
	l.each(func(v int64, c int) {
		if !found && i < seen+c {
			at, found = v, true
		}
		seen += c
	})
	return float64(at) / 1e6
}
