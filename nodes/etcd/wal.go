package etcd

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/kubesim/kubesim/nodes/raft"
	"github.com/kubesim/kubesim/sim"
)

// The member's files.
const (
	walFile  = "wal"
	snapFile = "snap"
)

// Record kinds.
const (
	recHardState byte = iota + 1
	recEntry
	recSnapshot
)

var errBadRecord = errors.New("etcd: corrupt record")

// seal appends the CRC-32 of b to b: every record ends with its checksum.
func seal(b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// unseal checks a record's CRC and returns its kind and body.
func unseal(rec []byte) (byte, []byte, error) {
	if len(rec) < 5 {
		return 0, nil, errBadRecord
	}
	body, sum := rec[:len(rec)-4], binary.BigEndian.Uint32(rec[len(rec)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return 0, nil, errBadRecord
	}
	return body[0], body[1:], nil
}

func encodeHardState(hs raft.HardState) []byte {
	b := []byte{recHardState}
	b = binary.AppendUvarint(b, hs.Term)
	b = binary.AppendUvarint(b, hs.Vote)
	b = binary.AppendUvarint(b, hs.Commit)
	return seal(b)
}

func encodeEntry(e *raft.Entry) []byte {
	b := make([]byte, 0, len(e.Data)+24)
	b = append(b, recEntry)
	b = binary.AppendUvarint(b, e.Term)
	b = binary.AppendUvarint(b, e.Index)
	b = append(b, byte(e.Type))
	b = append(b, e.Data...)
	return seal(b)
}

func encodeSnapshot(s *raft.Snapshot) []byte {
	b := appendSnapshotHeader(make([]byte, 0, len(s.Data)+64), s)
	b = append(b, s.Data...)
	return seal(b)
}

// sealSize is the length of the checksum seal appends.
const sealSize = 4

// snapshotRecordRoom is the room encodeStateAt leaves before the state for
// the snapshot record's header: its kind, index, term, log hash and a
// configuration of up to 16 members.
const snapshotRecordRoom = 1 + 3*binary.MaxVarintLen64 + 8 + 16*binary.MaxVarintLen64

// encodeSnapshotRecord is encodeSnapshot for a snapshot whose Data is
// buf[snapshotRecordRoom:], a buffer encodeStateAt built with sealSize
// bytes of spare capacity: the header is written into the room just
// before the state and the checksum just after it, in the same array, so
// the record shares the state's bytes (records and snapshot data are
// never written to once made). Anything else falls back to
// encodeSnapshot's copy.
func encodeSnapshotRecord(s *raft.Snapshot, buf []byte) []byte {
	state := buf[snapshotRecordRoom:]
	hdr := appendSnapshotHeader(make([]byte, 0, snapshotRecordRoom), s)
	if len(hdr) > snapshotRecordRoom || len(state) == 0 || len(s.Data) != len(state) || &s.Data[0] != &state[0] ||
		cap(state)-len(state) < sealSize {
		return encodeSnapshot(s)
	}
	start := snapshotRecordRoom - len(hdr)
	copy(buf[start:], hdr)
	return seal(buf[start:len(buf)])
}

// appendSnapshotHeader appends a snapshot record's kind, index, term, log
// hash and configuration.
func appendSnapshotHeader(b []byte, s *raft.Snapshot) []byte {
	b = append(b, recSnapshot)
	b = binary.AppendUvarint(b, s.Index)
	b = binary.AppendUvarint(b, s.Term)
	b = binary.BigEndian.AppendUint64(b, s.LogHash)
	// One uvarint holds both counts, voters in the low 8 bits: a snapshot
	// without learners encodes as before membership change existed.
	cs := &s.ConfState
	b = binary.AppendUvarint(b, uint64(len(cs.Voters))|uint64(len(cs.Learners))<<8)
	for _, p := range cs.Voters {
		b = binary.AppendUvarint(b, p)
	}
	for _, p := range cs.Learners {
		b = binary.AppendUvarint(b, p)
	}
	return b
}

// reader decodes the fields of one record body.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *reader) varint() int64 { return readVarint(r, binary.Varint) }

// readVarint decodes one varint with decode (binary.Uvarint or
// binary.Varint); a bad one is errBadRecord, and every later read of r
// gives 0.
func readVarint[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.b)
	if n <= 0 {
		r.err = errBadRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errBadRecord
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uint64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errBadRecord
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func decodeHardState(body []byte) (raft.HardState, error) {
	r := reader{b: body}
	hs := raft.HardState{Term: r.uvarint(), Vote: r.uvarint(), Commit: r.uvarint()}
	return hs, r.err
}

func decodeEntry(body []byte) (raft.Entry, error) {
	r := reader{b: body}
	e := raft.Entry{Term: r.uvarint(), Index: r.uvarint(), Type: raft.EntryType(r.byte())}
	if len(r.b) > 0 {
		e.Data = r.b
	}
	return e, r.err
}

func decodeSnapshot(body []byte) (*raft.Snapshot, error) {
	r := reader{b: body}
	s := &raft.Snapshot{Index: r.uvarint(), Term: r.uvarint(), LogHash: r.uint64()}
	counts := r.uvarint()
	nv, nl := counts&0xff, counts>>8
	if nv+nl > uint64(len(body)) {
		return nil, errBadRecord
	}
	for i := uint64(0); i < nv; i++ {
		s.ConfState.Voters = append(s.ConfState.Voters, r.uvarint())
	}
	for i := uint64(0); i < nl; i++ {
		s.ConfState.Learners = append(s.ConfState.Learners, r.uvarint())
	}
	s.Data = r.b
	return s, r.err
}

// loadDisk reads what a member restarts from: the snapshot file, then the
// WAL records up to the first one that fails its CRC (a torn tail), applying
// each entry record's "replace from this index on" rule. It reports how many
// WAL records it dropped.
func loadDisk(d *sim.Disk) (ps raft.PersistentState, dropped int) {
	if recs := d.Records(snapFile); len(recs) > 0 {
		if kind, body, err := unseal(recs[len(recs)-1]); err == nil && kind == recSnapshot {
			if s, err := decodeSnapshot(body); err == nil {
				ps.Snapshot = s
			}
		}
	}
	var snapIndex uint64
	if ps.Snapshot != nil {
		snapIndex = ps.Snapshot.Index
		ps.HardState = raft.HardState{Term: ps.Snapshot.Term, Commit: ps.Snapshot.Index}
	}
	recs := d.Records(walFile)
	if len(recs) > 0 {
		ps.Entries = make([]raft.Entry, 0, len(recs))
	}
	for i, rec := range recs {
		kind, body, err := unseal(rec)
		if err != nil {
			return finishLoad(ps, snapIndex), len(recs) - i
		}
		switch kind {
		case recHardState:
			hs, err := decodeHardState(body)
			if err != nil {
				return finishLoad(ps, snapIndex), len(recs) - i
			}
			ps.HardState = hs
		case recEntry:
			e, err := decodeEntry(body)
			if err != nil {
				return finishLoad(ps, snapIndex), len(recs) - i
			}
			ps.Entries = appendEntry(ps.Entries, snapIndex, e)
		}
	}
	return finishLoad(ps, snapIndex), 0
}

// appendEntry adds e to a log that starts after snapIndex, replacing any
// entries at e.Index or later. Entries the snapshot covers are skipped; an
// entry that would leave a gap is dropped.
func appendEntry(ents []raft.Entry, snapIndex uint64, e raft.Entry) []raft.Entry {
	if e.Index <= snapIndex {
		return ents
	}
	pos := e.Index - snapIndex - 1
	if pos > uint64(len(ents)) {
		return ents
	}
	return append(ents[:pos], e)
}

// finishLoad keeps the HardState consistent with the log: the commit index
// is a hint bounded by the last durable entry and at least the snapshot.
func finishLoad(ps raft.PersistentState, snapIndex uint64) raft.PersistentState {
	last := snapIndex + uint64(len(ps.Entries))
	ps.HardState.Commit = min(max(ps.HardState.Commit, snapIndex), last)
	if ps.Snapshot != nil && ps.HardState.Term < ps.Snapshot.Term {
		ps.HardState.Term = ps.Snapshot.Term
	}
	return ps
}
