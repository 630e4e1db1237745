package mvcc

// This file holds the request checks that etcd's KV service makes before a
// request is proposed (server/etcdserver/api/v3rpc/key.go). They are part of
// what a client observes, so the store makes them too.

import "slices"

// checkTxnRequest is etcd's checkTxnRequest: sizes against maxOps, keys of
// compares, then every op of both branches.
func checkTxnRequest(req *TxnRequest, maxOps int) error {
	opc := max(len(req.Compares), len(req.Success), len(req.Failure))
	if opc > maxOps {
		return ErrTooManyOps
	}
	for _, c := range req.Compares {
		if len(c.Key) == 0 {
			return ErrEmptyKey
		}
	}
	for _, op := range req.Success {
		if err := checkOp(op, maxOps-opc); err != nil {
			return err
		}
	}
	for _, op := range req.Failure {
		if err := checkOp(op, maxOps-opc); err != nil {
			return err
		}
	}
	return nil
}

// checkOp is etcd's checkRequestOp. An op of no known type (or a txn op
// without a txn) is etcd's empty union, answered with ErrKeyNotFound.
func checkOp(op Op, maxOps int) error {
	switch op.Type {
	case OpRange, OpDelete:
		if len(op.Key) == 0 {
			return ErrEmptyKey
		}
	case OpPut:
		if len(op.Key) == 0 {
			return ErrEmptyKey
		}
		if op.Put.IgnoreValue && len(op.Value) != 0 {
			return ErrValueProvided
		}
		if op.Put.IgnoreLease && op.Put.Lease != 0 {
			return ErrLeaseProvided
		}
	case OpTxn:
		if op.Txn == nil {
			return ErrKeyNotFound
		}
		return checkTxnRequest(op.Txn, maxOps)
	default:
		return ErrKeyNotFound
	}
	return nil
}

// interval is a delete's key span as etcd's interval tree sees it: [start,
// end), or the single key start when end is empty. Unlike a read, an end of
// "\x00" is taken literally here, as etcd does.
type interval struct {
	start, end string
}

// hits reports whether key k lies in the interval.
func (iv interval) hits(k string) bool {
	if iv.end == "" {
		return k == iv.start
	}
	return iv.start <= k && k < iv.end
}

// anyHits reports whether k lies in any of ivs.
func anyHits(ivs []interval, k string) bool {
	for _, iv := range ivs {
		if iv.hits(k) {
			return true
		}
	}
	return false
}

// checkIntervals is etcd's checkIntervals: within one branch (nested txns
// included) no key may be put twice, nor put and deleted. The then and else
// branches of a nested txn exclude each other, so they may put the same key.
// It returns the puts and deletes of ops for the enclosing level.
func checkIntervals(ops []Op) ([]string, []interval, error) {
	var dels []interval
	for _, op := range ops {
		if op.Type == OpDelete {
			dels = append(dels, interval{start: string(op.Key), end: string(op.End)})
		}
	}
	var puts []string
	for _, op := range ops {
		if op.Type != OpTxn || op.Txn == nil {
			continue
		}
		putsThen, delsThen, err := checkIntervals(op.Txn.Success)
		if err != nil {
			return nil, nil, err
		}
		putsElse, delsElse, err := checkIntervals(op.Txn.Failure)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range putsThen {
			if slices.Contains(puts, k) || anyHits(dels, k) {
				return nil, nil, ErrDuplicateKey
			}
			puts = append(puts, k)
		}
		for _, k := range putsElse {
			if slices.Contains(puts, k) && !slices.Contains(putsThen, k) {
				return nil, nil, ErrDuplicateKey
			}
			if anyHits(dels, k) {
				return nil, nil, ErrDuplicateKey
			}
			if !slices.Contains(puts, k) {
				puts = append(puts, k)
			}
		}
		dels = append(dels, delsThen...)
		dels = append(dels, delsElse...)
	}
	for _, op := range ops {
		if op.Type != OpPut {
			continue
		}
		k := string(op.Key)
		if slices.Contains(puts, k) || anyHits(dels, k) {
			return nil, nil, ErrDuplicateKey
		}
		puts = append(puts, k)
	}
	return puts, dels, nil
}
