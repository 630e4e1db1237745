package etcd

import (
	"encoding/json"
	"hash/fnv"
	"strconv"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// requestID identifies one write request across retries and duplicates:
// the client's identity (one per client incarnation) and its sequence number.
type requestID struct {
	Client string
	Seq    uint64
}

// key returns the waiter-map key of id.
func (id requestID) key() string {
	return id.Client + "#" + strconv.FormatUint(id.Seq, 10)
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
		Key    []byte           `json:",omitempty"`
		End    []byte           `json:",omitempty"`
		Value  []byte           `json:",omitempty"`
		PrevKV bool             `json:",omitempty"`
		Txn    *mvcc.TxnRequest `json:",omitempty"`
		Rev    int64            `json:",omitempty"`
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

// encodeProposal turns a write request into log entry data. encoding/json
// prints struct fields in declaration order, so equal requests give equal
// bytes.
func encodeProposal(w *writeRequest) []byte {
	b, err := json.Marshal(w)
	if err != nil {
		panic("etcd: encoding a proposal: " + err.Error())
	}
	return b
}

// decodeProposal parses log entry data.
func decodeProposal(data []byte) (*writeRequest, error) {
	w := new(writeRequest)
	if err := json.Unmarshal(data, w); err != nil {
		return nil, err
	}
	return w, nil
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
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
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
