package mvcc

// rangeKind says how a keyRange's end is to be read.
type rangeKind uint8

const (
	// rangeSingle matches exactly one key (no range end).
	rangeSingle rangeKind = iota
	// rangeBounded matches keys in [start, end).
	rangeBounded
	// rangeFrom matches every key >= start (range end "\x00").
	rangeFrom
)

// keyRange is a key or key interval in etcd's conventions, normalised once so
// that every operation reads it the same way.
type keyRange struct {
	start string
	end   string
	kind  rangeKind
}

// newKeyRange reads etcd's (key, range_end) pair: an empty end is the single
// key, "\x00" means every key >= key, anything else is [key, end).
func newKeyRange(key, end []byte) keyRange {
	switch {
	case len(end) == 0:
		return keyRange{start: string(key), kind: rangeSingle}
	case len(end) == 1 && end[0] == 0:
		return keyRange{start: string(key), kind: rangeFrom}
	default:
		return keyRange{start: string(key), end: string(end), kind: rangeBounded}
	}
}

// contains reports whether k is in the range.
func (r keyRange) contains(k string) bool {
	switch r.kind {
	case rangeSingle:
		return k == r.start
	case rangeFrom:
		return k >= r.start
	default:
		return k >= r.start && k < r.end
	}
}

// afterEnd reports whether k is past every key of the range (for scans in key
// order).
func (r keyRange) afterEnd(k string) bool {
	switch r.kind {
	case rangeSingle:
		return k > r.start
	case rangeFrom:
		return false
	default:
		return k >= r.end
	}
}
