package apiserver

import (
	"bytes"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// mutateFunc computes the object to write from the current one (a private
// copy it may change); a non-nil status ends the write with that answer.
type mutateFunc func(cur model.Object) (model.Object, *apiwire.Status)

// updateState is the object an attempt starts from: its stored bytes and
// mod_revision, and whether it was read from etcd (current) or taken from
// the watch cache, which may lag.
type updateState struct {
	kv      mvcc.KeyValue
	current bool
}

// updateOp is one read-modify-write, as the real API server's
// GuaranteedUpdate (k8s.io/apiserver, pkg/storage/etcd3/store.go): start
// from the watch cache's copy of the object when it has one (the Cacher
// passes it as cachedExistingObject), else read the key (a quorum read);
// apply mutate; write with a Txn on the mod_revision started from; on a
// conflict take the current value from the Txn's failure branch and try
// again, unless the caller's resourceVersion precondition makes the
// conflict final. A refusal (a stale precondition, an error of mutate) or a
// write that changes nothing is only answered from current data: from the
// cache's copy, it reads etcd and tries again.
type updateOp struct {
	c       *call
	key     string
	precond int64 // the resourceVersion the caller demands; 0 for none
	mutate  mutateFunc
}

// guaranteedUpdate runs an updateOp on key.
func (s *Server) guaranteedUpdate(c *call, key string, precond int64, mutate mutateFunc) {
	op := &updateOp{c: c, key: key, precond: precond, mutate: mutate}
	if st, ok := s.cachedState(key); ok {
		op.try(st)
		return
	}
	op.read()
}

// cachedState is the watch cache's copy of key, as stored.
func (s *Server) cachedState(key string) (updateState, bool) {
	ch := s.cacheOfKey([]byte(key))
	if ch == nil || !ch.ready {
		return updateState{}, false
	}
	obj, ok := ch.store[key]
	if !ok {
		return updateState{}, false
	}
	rev, ok := parseRV(obj.GetObjectMeta().ResourceVersion)
	data, err := encodeObject(obj)
	if !ok || err != nil {
		return updateState{}, false
	}
	return updateState{kv: mvcc.KeyValue{Key: []byte(key), Value: data, ModRevision: rev}}, true
}

// read reads the key from etcd and tries from there.
func (op *updateOp) read() { op.reread(0, nil) }

// reread reads the key from etcd and tries again from its current value;
// when st is not nil and the key's mod revision is still rev, it answers
// st instead (the refusal held on the current value).
func (op *updateOp) reread(rev int64, st *apiwire.Status) {
	op.c.readCurrent(op.key, func(kv mvcc.KeyValue) {
		if st != nil && kv.ModRevision == rev {
			op.c.fail(st) // the cache's copy was current after all
			return
		}
		op.try(updateState{kv: kv, current: true})
	})
}

// readCurrent reads key from etcd (a quorum read) and calls fn with its
// current value; an etcd error or a missing key answers the call instead,
// as the real store's Get before a conditional update or delete
// (k8s.io/apiserver, pkg/storage/etcd3/store.go, getState).
func (c *call) readCurrent(key string, fn func(mvcc.KeyValue)) {
	c.s.etcd.Get(key, etcd.GetOptions{}, func(r etcd.GetResult, err error) {
		switch {
		case err != nil:
			c.fail(etcdStatus(err))
		case len(r.KVs) == 0:
			c.fail(notFound(c.res, nameOfKey(key)))
		default:
			fn(r.KVs[0])
		}
	})
}

// refuse answers st, a refusal computed from state: at once when the state
// is current (or the update-trusts-stale-cache ablation is on), else after
// reading etcd, if the key has not changed since; otherwise it tries again
// from the current state.
func (op *updateOp) refuse(state updateState, st *apiwire.Status) {
	c := op.c
	if state.current || c.s.cfg.Ablations.Has(ablation.UpdateTrustsStaleCache) {
		c.fail(st)
		return
	}
	op.reread(state.kv.ModRevision, st)
}

// try applies the mutation to state and writes the result.
func (op *updateOp) try(state updateState) {
	c, s, kv := op.c, op.c.s, state.kv
	if op.precond != 0 && kv.ModRevision != op.precond {
		op.refuse(state, conflict(c.res, nameOfKey(op.key)))
		return
	}
	cur, err := s.decodeKV(kv)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	next, st := op.mutate(cur.DeepCopyObject())
	if st != nil {
		op.refuse(state, st)
		return
	}
	data, err := encodeObject(next)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	if bytes.Equal(data, kv.Value) {
		if !state.current {
			op.read() // nothing would change, but the cache may lag: look
			return
		}
		// Nothing changed: the real API server answers without writing.
		next.GetObjectMeta().ResourceVersion = cur.GetObjectMeta().ResourceVersion
		c.ok(next)
		return
	}
	var txn mvcc.TxnRequest
	switch {
	case readyToDelete(next):
		txn = deleteTxn(op.key, kv.ModRevision, next)
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

// retry handles a failed Txn: the key changed since the state was read. It
// tries again from the value the Txn's failure branch read, with no limit
// on the number of tries, as the real GuaranteedUpdate loops until it
// writes or a precondition or the mutation refuses (k8s.io/apiserver,
// pkg/storage/etcd3/store.go, GuaranteedUpdate: its `for {}` loop).
func (op *updateOp) retry(r etcd.TxnResult) {
	c := op.c
	kvs := r.FirstRange()
	if len(kvs) == 0 {
		c.fail(notFound(c.res, nameOfKey(op.key)))
		return
	}
	op.try(updateState{kv: kvs[0], current: true})
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
