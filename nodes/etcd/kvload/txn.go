package kvload

import (
	"strconv"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// startTxn runs a multi-op txn on group g, as etcd's robustness traffic
// does (MultiOpTxn, tests/robustness/traffic/etcd.go): an op on each key of
// the group, in random order, each a put of a unique value, a delete or a
// read, at least one a put. Half of them are guarded, as its
// compare-and-set is, by a compare of one key's mod revision with the one
// this client last saw (0 when it saw the key absent; a version of 0 when
// it never saw the key), and then read the whole group when the compare
// fails.
func (k *kvClient) startTxn(call *etcdtrace.Call, g int) {
	call.Kind = etcdtrace.OpTxn
	call.Key = ""
	grp := k.ks.groups[g]
	var req mvcc.TxnRequest
	order := k.rand.Perm(len(grp))
	puts := 0
	for i, j := range order {
		key := grp[j]
		op := etcdtrace.TxnOp{Key: key}
		switch x := k.rand.IntN(10); {
		case x < 5 || puts == 0 && i == len(order)-1:
			puts++
			op.Type, op.Value = etcdtrace.TxnPut, k.uniqueValue()+"."+strconv.Itoa(puts)
			req.Success = append(req.Success, mvcc.OpPutOf([]byte(key), []byte(op.Value), mvcc.PutOptions{}))
		case x < 7:
			op.Type = etcdtrace.TxnDelete
			req.Success = append(req.Success, mvcc.OpDeleteOf([]byte(key), nil, false))
		default:
			op.Type = etcdtrace.TxnRange
			req.Success = append(req.Success, mvcc.OpRangeOf([]byte(key), nil, mvcc.RangeOptions{}))
		}
		call.Ops = append(call.Ops, op)
	}
	if k.rand.IntN(2) == 0 {
		key := grp[k.rand.IntN(len(grp))]
		cmp := etcdtrace.Compare{Key: key, Target: etcdtrace.CmpMod}
		mc := mvcc.Compare{Key: []byte(key), Result: mvcc.CompareEqual, Target: mvcc.CompareMod}
		if kn, ok := k.known[key]; ok {
			cmp.ModRev, mc.ModRevision = kn.mod, kn.mod
		} else {
			cmp.Target, mc.Target = etcdtrace.CmpVersion, mvcc.CompareVersion
		}
		call.Compares = append(call.Compares, cmp)
		req.Compares = append(req.Compares, mc)
		key0, end := k.ks.groupRange(g)
		call.Ops = append(call.Ops, etcdtrace.TxnOp{Else: true, Type: etcdtrace.TxnRange, Key: key0, End: end})
		req.Failure = append(req.Failure, mvcc.OpRangeOf([]byte(key0), []byte(end), mvcc.RangeOptions{}))
	}
	k.h.Emit(call)
	k.c.Txn(req, func(res etcd.TxnResult, err error) {
		ret := k.newReturn(err, res.Header)
		if err == nil {
			ret.Succeeded = res.Succeeded
			k.learnTxn(call, res, &ret.KVs)
		}
		k.finish(ret)
	})
}

// learnTxn records the branch that ran: what its writes wrote, what its
// reads read (into kvs, by op position).
func (k *kvClient) learnTxn(call *etcdtrace.Call, res etcd.TxnResult, kvs *[]etcdtrace.ReadKV) {
	n := 0
	for _, op := range call.Ops {
		if op.Else == res.Succeeded {
			continue
		}
		if n >= len(res.Responses) {
			return
		}
		r := res.Responses[n]
		switch op.Type {
		case etcdtrace.TxnPut:
			k.known[op.Key] = known{value: op.Value, mod: res.Revision}
		case etcdtrace.TxnDelete:
			k.known[op.Key] = known{absent: true}
		case etcdtrace.TxnRange:
			if r.Range != nil {
				*kvs = readKVs(*kvs, n, r.Range.KVs)
				k.learn(op.Key, op.End, r.Range.KVs)
			}
		}
		n++
	}
}
