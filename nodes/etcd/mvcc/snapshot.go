package mvcc

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// snapshotMagic starts every snapshot; the last byte is the format version.
const snapshotMagic = "kmvcc\x01"

// Snapshot encodes the whole key-value state (current and compact revisions,
// and every retained version and tombstone) so that a Raft snapshot can carry
// it. Watchers, ablations and settings are not part of it. The encoding is
// deterministic: equal states give equal bytes.
func (s *Store) Snapshot() []byte { return s.AppendSnapshot(make([]byte, 0, s.SnapshotSize())) }

// AppendSnapshot appends Snapshot's encoding to b: with SnapshotSize
// bytes of room, a caller builds a larger record in one allocation.
func (s *Store) AppendSnapshot(b []byte) []byte {
	b = append(b, snapshotMagic...)
	b = binary.AppendVarint(b, s.rev)
	b = binary.AppendVarint(b, s.compactRev)
	b = binary.AppendUvarint(b, uint64(len(s.ks.hist)))
	for _, h := range s.ks.hist {
		b = appendString(b, h.key)
		b = binary.AppendUvarint(b, uint64(len(h.recs)))
		for _, r := range h.recs {
			b = binary.AppendVarint(b, r.main)
			b = binary.AppendVarint(b, r.sub)
			if r.tomb {
				b = append(b, 1)
				continue
			}
			b = append(b, 0)
			b = appendString(b, r.value)
			b = binary.AppendVarint(b, r.create)
			b = binary.AppendVarint(b, r.version)
			b = binary.AppendVarint(b, r.lease)
		}
	}
	return b
}

// SnapshotSize is the length of Snapshot's encoding, so that it is built
// in one allocation: the store can hold minutes of history, and growing
// the buffer by appending copied it over and over.
func (s *Store) SnapshotSize() int {
	n := len(snapshotMagic) + varintLen(s.rev) + varintLen(s.compactRev) + uvarintLen(uint64(len(s.ks.hist)))
	for _, h := range s.ks.hist {
		n += uvarintLen(uint64(len(h.key))) + len(h.key) + uvarintLen(uint64(len(h.recs)))
		for _, r := range h.recs {
			n += varintLen(r.main) + varintLen(r.sub) + 1
			if !r.tomb {
				n += uvarintLen(uint64(len(r.value))) + len(r.value) + varintLen(r.create) + varintLen(r.version) + varintLen(r.lease)
			}
		}
	}
	return n
}

// uvarintLen is the length of binary.AppendUvarint's encoding of v.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// varintLen is the length of binary.AppendVarint's encoding of v.
func varintLen(v int64) int { return uvarintLen(uint64(v<<1) ^ uint64(v>>63)) }

// appendString appends a length-prefixed string.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Restore replaces the key-value state with a Snapshot's, as a member does when
// it installs a Raft snapshot. On error the store is unchanged. Watchers stay;
// as in etcd, the synced ones become unsynced and catch up from the restored
// history on the next SyncWatchers.
func (s *Store) Restore(data []byte) error {
	ks, rev, compactRev, err := decodeSnapshot(data)
	if err != nil {
		return err
	}
	s.ks, s.rev, s.compactRev = ks, rev, compactRev
	s.watchersRestored()
	return nil
}

// decodeSnapshot parses and validates a Snapshot.
func decodeSnapshot(data []byte) (keyspace, int64, int64, error) {
	d := decoder{b: data}
	if len(data) < len(snapshotMagic) || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return keyspace{}, 0, 0, invalidSnapshot("bad magic")
	}
	d.b = d.b[len(snapshotMagic):]
	rev, compactRev := d.varint(), d.varint()
	n := d.count()
	var ks keyspace
	for i := 0; i < n && d.err == nil; i++ {
		h := &keyHistory{key: d.str()}
		if h.key == "" || (i > 0 && ks.hist[i-1].key >= h.key) {
			d.fail("keys not sorted")
		}
		m := d.count()
		for j := 0; j < m && d.err == nil; j++ {
			r := record{main: d.varint(), sub: d.varint()}
			switch d.byte() {
			case 1:
				r.tomb = true
			case 0:
				r.value, r.create, r.version, r.lease = d.str(), d.varint(), d.varint(), d.varint()
			default:
				d.fail("bad record kind")
			}
			if r.main > rev || (j > 0 && !revLess(h.recs[j-1], r)) {
				d.fail("revisions out of order")
			}
			h.recs = append(h.recs, r)
		}
		if m == 0 {
			d.fail("key without history")
		}
		ks.hist = append(ks.hist, h)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err == nil && (rev < 1 || compactRev > rev) {
		d.fail("bad revisions")
	}
	return ks, rev, compactRev, d.err
}

// revLess orders records by (main, sub).
func revLess(a, b record) bool {
	return a.main < b.main || (a.main == b.main && a.sub < b.sub)
}

// decoder reads a snapshot, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

// fail records an error once.
func (d *decoder) fail(reason string) {
	if d.err == nil {
		d.err = invalidSnapshot(reason)
	}
}

// varint reads a signed varint.
func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("truncated integer")
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length that must fit in the remaining bytes.
func (d *decoder) count() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)) {
		d.fail(fmt.Sprintf("bad length at %d bytes left", len(d.b)))
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

// byte reads one byte.
func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// str reads a length-prefixed string.
func (d *decoder) str() string {
	n := d.count()
	if n > len(d.b) {
		d.fail("truncated string")
		d.b = nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
