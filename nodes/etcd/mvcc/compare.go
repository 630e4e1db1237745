package mvcc

import (
	"bytes"
	"cmp"

	"github.com/kubesim/kubesim/ablation"
)

// CompareTarget is the field a Compare looks at; values match etcd's proto.
type CompareTarget int32

// Compare targets.
const (
	// CompareVersion compares KeyValue.Version with Compare.Version.
	CompareVersion CompareTarget = 0
	// CompareCreate compares KeyValue.CreateRevision with Compare.CreateRevision.
	CompareCreate CompareTarget = 1
	// CompareMod compares KeyValue.ModRevision with Compare.ModRevision.
	CompareMod CompareTarget = 2
	// CompareValue compares KeyValue.Value with Compare.Value, bytewise.
	CompareValue CompareTarget = 3
	// CompareLease compares KeyValue.Lease with Compare.Lease.
	CompareLease CompareTarget = 4
)

// CompareResult is the relation a Compare demands; values match etcd's proto.
type CompareResult int32

// Compare results: the stored field must be EQUAL, GREATER, LESS or NOT_EQUAL
// to the compare's operand.
const (
	CompareEqual    CompareResult = 0
	CompareGreater  CompareResult = 1
	CompareLess     CompareResult = 2
	CompareNotEqual CompareResult = 3
)

// Compare is one guard of a txn. With RangeEnd, every live key of the range must
// satisfy it. A missing key compares as a KeyValue of zeros (version 0, create
// 0, mod 0, lease 0), except that a VALUE compare on no key always fails.
type Compare struct {
	// Key is the key, or the start of the range.
	Key []byte
	// RangeEnd is the range end: empty for a single key, "\x00" for every
	// key >= Key.
	RangeEnd []byte
	// Target is the field compared.
	Target CompareTarget
	// Result is the relation demanded of stored field against operand.
	Result CompareResult
	// Version is the operand of a CompareVersion.
	Version int64
	// CreateRevision is the operand of a CompareCreate.
	CreateRevision int64
	// ModRevision is the operand of a CompareMod.
	ModRevision int64
	// Value is the operand of a CompareValue.
	Value []byte
	// Lease is the operand of a CompareLease.
	Lease int64
}

// txnPathOf decides every branch of req and its nested txns against the current
// state, before anything is written (etcd's compareToPath).
func (s *Store) txnPathOf(req *TxnRequest) *txnPath {
	p := &txnPath{succeeded: s.Ablations.Has(ablation.IgnoreCompare) || s.applyCompares(req.Compares)}
	for _, op := range p.branch(req) {
		if op.Type == OpTxn {
			p.nested = append(p.nested, s.txnPathOf(op.Txn))
		}
	}
	return p
}

// applyCompares reports whether every compare holds.
func (s *Store) applyCompares(cs []Compare) bool {
	for i := range cs {
		if !s.applyCompare(&cs[i]) {
			return false
		}
	}
	return true
}

// applyCompare evaluates one compare at the current revision, as etcd's
// applyCompare.
func (s *Store) applyCompare(c *Compare) bool {
	// Only a value comparison needs the values; the others read keys only,
	// which spares copying every value.
	rr, err := s.rangeKeys(newKeyRange(c.Key, c.RangeEnd), RangeOptions{KeysOnly: c.Target != CompareValue}, s.rev)
	if err != nil {
		return false
	}
	if len(rr.KVs) == 0 {
		if c.Target == CompareValue {
			return false
		}
		return compareKV(c, KeyValue{})
	}
	for _, kv := range rr.KVs {
		if !compareKV(c, kv) {
			return false
		}
	}
	return true
}

// compareKV checks one KeyValue against c.
func compareKV(c *Compare, kv KeyValue) bool {
	var r int
	switch c.Target {
	case CompareValue:
		r = bytes.Compare(kv.Value, c.Value)
	case CompareCreate:
		r = cmp.Compare(kv.CreateRevision, c.CreateRevision)
	case CompareMod:
		r = cmp.Compare(kv.ModRevision, c.ModRevision)
	case CompareVersion:
		r = cmp.Compare(kv.Version, c.Version)
	case CompareLease:
		r = cmp.Compare(kv.Lease, c.Lease)
	}
	switch c.Result {
	case CompareEqual:
		return r == 0
	case CompareNotEqual:
		return r != 0
	case CompareGreater:
		return r > 0
	case CompareLess:
		return r < 0
	}
	return true
}
