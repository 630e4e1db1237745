package apiserver

import (
	"bytes"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiwire"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
)

// mutateFunc computes the object to write from the current one (a private
// copy it may change); a non-nil status ends the write with that answer.
type mutateFunc func(cur model.Object) (model.Object, *apiwire.Status)

// updateOp is one read-modify-write, as the real API server's
// GuaranteedUpdate: read the key (a quorum read), apply mutate, write with
// a Txn on the mod_revision read; on a conflict take the current value from
// the Txn's failure branch and try again, unless the caller's
// resourceVersion precondition makes the conflict final.
type updateOp struct {
	c        *call
	key      string
	precond  int64 // the resourceVersion the caller demands; 0 for none
	mutate   mutateFunc
	attempts int
}

// guaranteedUpdate runs an updateOp on key.
func (s *Server) guaranteedUpdate(c *call, key string, precond int64, mutate mutateFunc) {
	op := &updateOp{c: c, key: key, precond: precond, mutate: mutate}
	s.etcd.Get(key, etcd.GetOptions{}, func(r etcd.GetResult, err error) {
		switch {
		case err != nil:
			c.fail(etcdStatus(err))
		case len(r.KVs) == 0:
			c.fail(notFound(c.res, nameOfKey(key)))
		default:
			op.try(r.KVs[0])
		}
	})
}

// try applies the mutation to kv and writes the result.
func (op *updateOp) try(kv mvcc.KeyValue) {
	c, s := op.c, op.c.s
	if op.precond != 0 && kv.ModRevision != op.precond {
		c.fail(conflict(c.res, nameOfKey(op.key)))
		return
	}
	cur, err := s.decodeKV(kv)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	next, st := op.mutate(cur.DeepCopyObject())
	if st != nil {
		c.fail(st)
		return
	}
	data, err := encodeObject(next)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	if bytes.Equal(data, kv.Value) {
		// Nothing changed: the real API server answers without writing.
		next.GetObjectMeta().ResourceVersion = cur.GetObjectMeta().ResourceVersion
		c.ok(next)
		return
	}
	var txn mvcc.TxnRequest
	switch {
	case readyToDelete(next):
		txn = txnDeleteIfMod(op.key, kv.ModRevision)
	case s.cfg.Ablations.Has(ablation.LastWriteWins):
		txn = txnPut(op.key, data)
	default:
		txn = txnPutIfMod(op.key, kv.ModRevision, data)
	}
	c.admit(next, cur)
	s.etcd.Txn(txn, func(r etcd.TxnResult, err error) {
		switch {
		case err != nil:
			c.fail(etcdStatus(err))
		case r.Succeeded:
			c.traceOwners(cur, next, readyToDelete(next))
			next.GetObjectMeta().ResourceVersion = formatRV(r.Revision)
			c.ok(next)
		default:
			op.retry(r)
		}
	})
}

// retry handles a failed Txn: the key changed since it was read.
func (op *updateOp) retry(r etcd.TxnResult) {
	c := op.c
	var kvs []mvcc.KeyValue
	if len(r.Responses) > 0 && r.Responses[0].Range != nil {
		kvs = r.Responses[0].Range.KVs
	}
	op.attempts++
	switch {
	case len(kvs) == 0:
		c.fail(notFound(c.res, nameOfKey(op.key)))
	case op.precond != 0 || op.attempts >= maxUpdateAttempts:
		c.fail(conflict(c.res, nameOfKey(op.key)))
	default:
		op.try(kvs[0])
	}
}

// readyToDelete reports an object being deleted whose last finalizer is
// gone and whose grace period is over: the update that removed the
// finalizer deletes it.
func readyToDelete(obj model.Object) bool {
	m := obj.GetObjectMeta()
	return m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && model.Deref(m.DeletionGracePeriodSeconds, 0) == 0
}

// nameOfKey is the last segment of a storage key.
func nameOfKey(key string) string {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '/' {
			return key[i+1:]
		}
	}
	return key
}
