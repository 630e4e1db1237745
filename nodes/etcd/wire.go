package etcd

import (
	"encoding/binary"
	"errors"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// requestID identifies one write request across retries and duplicates:
// the client's identity (one per client incarnation) and its sequence number.
type requestID struct {
	Client string
	Seq    uint64
}

// The client RPC bodies, sent to ClientPort.
type (
	// rangeRequest is a Range.
	rangeRequest struct {
		Key, End     []byte
		Rev, Limit   int64
		Serializable bool
	}
	// writeRequest is a Put, DeleteRange, Txn or Compact: everything that
	// goes through Raft. It is also the proposal encoded into a log entry.
	writeRequest struct {
		ID     requestID
		Op     writeOp
		Key    []byte
		End    []byte
		Value  []byte
		PrevKV bool
		Txn    *mvcc.TxnRequest
		Rev    int64
	}
	// statusRequest asks for a member's status.
	statusRequest struct{}
	// watchCreate opens a watch whose responses go to Port on the caller,
	// tagged with the caller's Stream.
	watchCreate struct {
		Stream   uint64
		Port     string
		Key, End []byte
		StartRev int64
		PrevKV   bool
		// ProgressNotify is WatchCreateRequest.progress_notify.
		ProgressNotify bool
	}
	// watchProgress asks for a progress notification on a stream.
	watchProgress struct{ Stream uint64 }
	// watchCancel ends a stream.
	watchCancel struct{ Stream uint64 }
)

// writeOp names the kind of a writeRequest.
type writeOp uint8

// The write kinds.
const (
	opPut writeOp = iota + 1
	opDelete
	opTxn
	opCompact
)

// The proposal encoding: a compact, deterministic binary form of a
// writeRequest, built from unsigned varints, zig-zag varints and
// length-prefixed byte strings (proposalMagic first). Equal requests give
// equal bytes; an empty byte string decodes as nil, as proto3 does.
//
//	proposal := magic client:bytes seq:uvarint op:byte key:bytes end:bytes
//	            value:bytes flags:byte rev:varint [txn if flags&pfTxn]
//	txn      := n:uvarint compare*n  n:uvarint op*n (success)  n:uvarint op*n (failure)
//	compare  := key:bytes rangeEnd:bytes target:varint result:varint
//	            version:varint create:varint mod:varint value:bytes lease:varint
//	op       := type:byte key:bytes end:bytes value:bytes rangeRev:varint
//	            rangeLimit:varint putLease:varint flags:byte [txn if flags&ofTxn]
const proposalMagic byte = 0xb1

// Proposal flags.
const (
	pfPrevKV byte = 1 << iota
	pfTxn
)

// Txn op flags.
const (
	ofCountOnly byte = 1 << iota
	ofKeysOnly
	ofPutPrevKV
	ofIgnoreValue
	ofIgnoreLease
	ofPrevKV
	ofTxn
)

// maxTxnDepth bounds the nesting of txns a proposal may decode into.
const maxTxnDepth = 64

var errBadProposal = errors.New("etcd: invalid proposal")

// encodeProposal turns a write request into log entry data.
func encodeProposal(w *writeRequest) []byte {
	b := make([]byte, 0, 32+len(w.ID.Client)+len(w.Key)+len(w.End)+len(w.Value))
	b = append(b, proposalMagic)
	b = appendString(b, w.ID.Client)
	b = binary.AppendUvarint(b, w.ID.Seq)
	b = append(b, byte(w.Op))
	b = appendBytes(b, w.Key)
	b = appendBytes(b, w.End)
	b = appendBytes(b, w.Value)
	var f byte
	if w.PrevKV {
		f |= pfPrevKV
	}
	if w.Txn != nil {
		f |= pfTxn
	}
	b = append(b, f)
	b = binary.AppendVarint(b, w.Rev)
	if w.Txn != nil {
		b = appendTxn(b, w.Txn)
	}
	return b
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTxn(b []byte, t *mvcc.TxnRequest) []byte {
	b = binary.AppendUvarint(b, uint64(len(t.Compares)))
	for i := range t.Compares {
		c := &t.Compares[i]
		b = appendBytes(b, c.Key)
		b = appendBytes(b, c.RangeEnd)
		b = binary.AppendVarint(b, int64(c.Target))
		b = binary.AppendVarint(b, int64(c.Result))
		b = binary.AppendVarint(b, c.Version)
		b = binary.AppendVarint(b, c.CreateRevision)
		b = binary.AppendVarint(b, c.ModRevision)
		b = appendBytes(b, c.Value)
		b = binary.AppendVarint(b, c.Lease)
	}
	b = appendOps(b, t.Success)
	return appendOps(b, t.Failure)
}

func appendOps(b []byte, ops []mvcc.Op) []byte {
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for i := range ops {
		op := &ops[i]
		b = append(b, byte(op.Type))
		b = appendBytes(b, op.Key)
		b = appendBytes(b, op.End)
		b = appendBytes(b, op.Value)
		b = binary.AppendVarint(b, op.Range.Rev)
		b = binary.AppendVarint(b, op.Range.Limit)
		b = binary.AppendVarint(b, op.Put.Lease)
		var f byte
		for _, x := range [...]struct {
			on  bool
			bit byte
		}{
			{op.Range.CountOnly, ofCountOnly}, {op.Range.KeysOnly, ofKeysOnly},
			{op.Put.PrevKV, ofPutPrevKV}, {op.Put.IgnoreValue, ofIgnoreValue},
			{op.Put.IgnoreLease, ofIgnoreLease}, {op.PrevKV, ofPrevKV}, {op.Txn != nil, ofTxn},
		} {
			if x.on {
				f |= x.bit
			}
		}
		b = append(b, f)
		if op.Txn != nil {
			b = appendTxn(b, op.Txn)
		}
	}
	return b
}

// decodeProposal parses log entry data. The byte strings of the result
// alias data, which the log never modifies.
func decodeProposal(data []byte) (*writeRequest, error) {
	if len(data) == 0 || data[0] != proposalMagic {
		return nil, errBadProposal
	}
	r := reader{b: data[1:]}
	w := new(writeRequest)
	w.ID.Client = string(r.bytes())
	w.ID.Seq = r.uvarint()
	w.Op = writeOp(r.byte())
	w.Key = r.bytes()
	w.End = r.bytes()
	w.Value = r.bytes()
	f := r.byte()
	w.Rev = r.varint()
	w.PrevKV = f&pfPrevKV != 0
	if f&pfTxn != 0 {
		w.Txn = r.txn(0)
	}
	if r.err != nil || len(r.b) != 0 || f&^(pfPrevKV|pfTxn) != 0 {
		return nil, errBadProposal
	}
	return w, nil
}

// bytes reads a length-prefixed byte string; empty gives nil.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errBadRecord
		return nil
	}
	if n == 0 {
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

// count reads a element count, each element taking at least min bytes.
func (r *reader) count(min int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/min) {
		r.err = errBadRecord
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func (r *reader) int32() int32 {
	v := r.varint()
	if v != int64(int32(v)) {
		r.err = errBadRecord
	}
	return int32(v)
}

func (r *reader) txn(depth int) *mvcc.TxnRequest {
	if depth >= maxTxnDepth {
		r.err = errBadRecord
		return nil
	}
	t := new(mvcc.TxnRequest)
	if n := r.count(9); n > 0 {
		t.Compares = make([]mvcc.Compare, n)
		for i := range t.Compares {
			c := &t.Compares[i]
			c.Key = r.bytes()
			c.RangeEnd = r.bytes()
			c.Target = mvcc.CompareTarget(r.int32())
			c.Result = mvcc.CompareResult(r.int32())
			c.Version = r.varint()
			c.CreateRevision = r.varint()
			c.ModRevision = r.varint()
			c.Value = r.bytes()
			c.Lease = r.varint()
		}
	}
	t.Success = r.ops(depth)
	t.Failure = r.ops(depth)
	return t
}

func (r *reader) ops(depth int) []mvcc.Op {
	n := r.count(8)
	if n == 0 {
		return nil
	}
	ops := make([]mvcc.Op, n)
	for i := range ops {
		op := &ops[i]
		op.Type = mvcc.OpType(r.byte())
		op.Key = r.bytes()
		op.End = r.bytes()
		op.Value = r.bytes()
		op.Range.Rev = r.varint()
		op.Range.Limit = r.varint()
		op.Put.Lease = r.varint()
		f := r.byte()
		if f&^(ofCountOnly|ofKeysOnly|ofPutPrevKV|ofIgnoreValue|ofIgnoreLease|ofPrevKV|ofTxn) != 0 {
			r.err = errBadRecord
		}
		op.Range.CountOnly = f&ofCountOnly != 0
		op.Range.KeysOnly = f&ofKeysOnly != 0
		op.Put.PrevKV = f&ofPutPrevKV != 0
		op.Put.IgnoreValue = f&ofIgnoreValue != 0
		op.Put.IgnoreLease = f&ofIgnoreLease != 0
		op.PrevKV = f&ofPrevKV != 0
		if f&ofTxn != 0 {
			op.Txn = r.txn(depth + 1)
		}
		if r.err != nil {
			return nil
		}
	}
	return ops
}

// Header is the response header every answer carries.
type Header struct {
	// Revision is the store revision of the answer.
	Revision int64
	// MemberID and Member identify the member that answered.
	MemberID uint64
	Member   string
	// RaftTerm is that member's Raft term when it answered.
	RaftTerm uint64
}

// reply is the body of every answer on ClientPort; the field of the request's
// kind is set unless Err is.
type reply struct {
	Header Header
	Err    error
	Range  *mvcc.RangeResult
	Put    *mvcc.PutResult
	Delete *mvcc.DeleteResult
	Txn    *mvcc.TxnResponse
	Status *StatusResult
	// Snapshot answers Maintenance.Snapshot.
	Snapshot *Snapshot
	// Members answers the member calls.
	Members []Member
}

// StatusResult is a member's status, as etcd's StatusResponse.
type StatusResult struct {
	Header
	// Leader is the Raft ID of the leader the member knows, 0 if none.
	Leader uint64
	// RaftIndex is the member's commit index; RaftAppliedIndex what it applied.
	RaftIndex        uint64
	RaftAppliedIndex uint64
	// DBSize stands for etcd's database size: the number of revisions the
	// store keeps (current revision minus compact revision).
	DBSize int64
	// IsLeader reports whether the member is the leader.
	IsLeader bool
}

// watchMessage is one watch response on its way to the watcher: the watcher's
// Stream, a per-stream sequence number starting at 1, and the response.
type watchMessage struct {
	Stream uint64
	Seq    uint64
	Member string
	Resp   mvcc.WatchResponse
}

// hashData is FNV-1a over an entry's data (etcdtrace.Apply.EntryHash).
func hashData(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// hostOf returns the host of the peer with Raft ID id.
func hostOf(peers []Peer, id uint64) (sim.HostID, bool) {
	for _, p := range peers {
		if p.ID == id {
			return p.Host, true
		}
	}
	return sim.NoHost, false
}
