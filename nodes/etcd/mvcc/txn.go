package mvcc

import "github.com/kubesim/kubesim/ablation"

// OpType says which request an Op carries.
type OpType uint8

// The operation kinds of a txn branch, as etcd's RequestOp union.
const (
	// OpRange is a read: Key, End and Range are used.
	OpRange OpType = iota + 1
	// OpPut is a put: Key, Value and Put are used.
	OpPut
	// OpDelete is a delete-range: Key, End and PrevKV are used.
	OpDelete
	// OpTxn is a nested txn: Txn is used.
	OpTxn
)

// Op is one operation of a txn branch. Only the fields of its Type are read.
type Op struct {
	// Type is the kind of operation.
	Type OpType
	// Key is the key, or the start of the range.
	Key []byte
	// End is the range end (OpRange, OpDelete): empty for a single key,
	// "\x00" for every key >= Key.
	End []byte
	// Value is the value to put (OpPut).
	Value []byte
	// Range holds the read options (OpRange).
	Range RangeOptions
	// Put holds the put options (OpPut).
	Put PutOptions
	// PrevKV asks a delete for the deleted versions (OpDelete).
	PrevKV bool
	// Txn is the nested txn (OpTxn).
	Txn *TxnRequest
}

// OpRangeOf builds a read operation.
func OpRangeOf(key, end []byte, opts RangeOptions) Op {
	return Op{Type: OpRange, Key: key, End: end, Range: opts}
}

// OpPutOf builds a put operation.
func OpPutOf(key, value []byte, opts PutOptions) Op {
	return Op{Type: OpPut, Key: key, Value: value, Put: opts}
}

// OpDeleteOf builds a delete-range operation.
func OpDeleteOf(key, end []byte, prevKV bool) Op {
	return Op{Type: OpDelete, Key: key, End: end, PrevKV: prevKV}
}

// OpTxnOf builds a nested txn operation.
func OpTxnOf(req TxnRequest) Op {
	return Op{Type: OpTxn, Txn: &req}
}

// OpResponse is the answer to one Op; the field of its Type is set.
type OpResponse struct {
	// Type is the Op's type.
	Type OpType
	// Range answers an OpRange.
	Range *RangeResult
	// Put answers an OpPut.
	Put *PutResult
	// Delete answers an OpDelete.
	Delete *DeleteResult
	// Txn answers an OpTxn. Its Rev is 0: etcd fills the header revision of the
	// outermost txn response only.
	Txn *TxnResponse
}

// TxnRequest is etcd's mini-transaction: if every compare holds, run Success,
// else run Failure, atomically at one revision.
type TxnRequest struct {
	// Compares are all evaluated against the state before the txn, including
	// those of nested txns.
	Compares []Compare
	// Success runs when every compare holds.
	Success []Op
	// Failure runs otherwise.
	Failure []Op
}

// TxnResponse is the answer to a txn.
type TxnResponse struct {
	// Succeeded says which branch ran.
	Succeeded bool
	// Responses answer the ops of the branch that ran, in order.
	Responses []OpResponse
	// Rev is the header revision: the txn's revision if it wrote something,
	// else the current revision.
	Rev int64
}

// txnPath is the branch decision of a txn and of each nested txn of the branch
// taken, in op order (etcd's flattened txnPath, as a tree).
type txnPath struct {
	succeeded bool
	nested    []*txnPath
}

// branch returns the ops the path runs.
func (p *txnPath) branch(req *TxnRequest) []Op {
	if p.succeeded {
		return req.Success
	}
	return req.Failure
}

// Txn validates and runs a txn as etcd does: request checks (empty keys, too
// many ops, overlapping puts and deletes), then every compare against the
// current state, then the checks of the chosen branch (read revisions, puts
// that need an existing key), and only then the writes, all at one revision.
// A failed check changes nothing.
func (s *Store) Txn(req TxnRequest) (TxnResponse, error) {
	if err := checkTxnRequest(&req, s.maxTxnOps()); err != nil {
		return TxnResponse{}, err
	}
	if _, _, err := checkIntervals(req.Success); err != nil {
		return TxnResponse{}, err
	}
	if _, _, err := checkIntervals(req.Failure); err != nil {
		return TxnResponse{}, err
	}
	path := s.txnPathOf(&req)
	t := s.beginWrite()
	if err := t.checkBranch(&req, path); err != nil {
		return TxnResponse{}, err
	}
	resp := t.execute(&req, path)
	resp.Rev = t.curRev()
	t.end()
	return resp, nil
}

// splitIfAblated commits what the txn wrote so far at its own revision and
// goes on at the next one, when the txn-not-atomic ablation is on.
func (t *writeTxn) splitIfAblated() {
	if !t.s.Ablations.Has(ablation.TxnNotAtomic) || len(t.changes) == 0 {
		return
	}
	t.end() // ablation: one revision per write
	t.beginRev, t.changes = t.s.rev, nil
}

// checkBranch is etcd's checkTxn: it checks the ops that the path will run,
// against the state before the txn.
func (t *writeTxn) checkBranch(req *TxnRequest, p *txnPath) error {
	nested := 0
	for _, op := range p.branch(req) {
		var err error
		switch op.Type {
		case OpRange:
			err = t.s.checkRangeRev(op.Range.Rev)
		case OpPut:
			err = t.checkPut(op)
		case OpTxn:
			err = t.checkBranch(op.Txn, p.nested[nested])
			nested++
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRangeRev is etcd's checkRange: a read revision must lie between the
// compact revision and the current revision (0 means current).
func (s *Store) checkRangeRev(rev int64) error {
	switch {
	case rev == 0:
		return nil
	case rev > s.rev:
		return &FutureRevError{Rev: rev, CurrentRev: s.rev}
	case rev < s.compactRev:
		return &CompactedError{CompactRev: s.compactRev}
	}
	return nil
}

// execute runs the branch chosen by p; checks have passed, so nothing fails.
func (t *writeTxn) execute(req *TxnRequest, p *txnPath) TxnResponse {
	ops := p.branch(req)
	resp := TxnResponse{Succeeded: p.succeeded, Responses: make([]OpResponse, len(ops))}
	nested := 0
	for i, op := range ops {
		out := OpResponse{Type: op.Type}
		switch op.Type {
		case OpRange:
			rr, err := t.rangeOp(op)
			if err != nil {
				panic("mvcc: txn range failed after its check: " + err.Error())
			}
			out.Range = &rr
		case OpPut:
			pr := t.put(op)
			out.Put = &pr
			t.splitIfAblated()
		case OpDelete:
			dr := t.deleteRange(op)
			out.Delete = &dr
			t.splitIfAblated()
		case OpTxn:
			tr := t.execute(op.Txn, p.nested[nested])
			nested++
			out.Txn = &tr
		}
		resp.Responses[i] = out
	}
	return resp
}
