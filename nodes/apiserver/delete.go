package apiserver

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// deleteOp is one delete across its internal retries.
type deleteOp struct {
	c   *call
	key string
	// old is the object the current try read, for the trace.
	old model.Object
}

// delete serves delete: preconditions (UID, resourceVersion: 409 Conflict),
// then either a mark (a pod with a grace period, or an object with
// finalizers: deletionTimestamp set through a Txn on mod_revision) or a
// Txn delete on mod_revision. A conflict re-reads and tries again.
func (s *Server) delete(c *call) {
	op := &deleteOp{c: c, key: storageKey(c.res, requestNamespace(c.req, c.res), requestName(c.req))}
	op.read()
}

// read fetches the current object (a quorum read) and tries.
func (op *deleteOp) read() { op.c.readCurrent(op.key, op.try) }

// try decides and writes, given the current value kv.
func (op *deleteOp) try(kv mvcc.KeyValue) {
	c, s := op.c, op.c.s
	cur, err := s.decodeKV(kv)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	if st := s.nodeRestriction(c.req, c.res, cur); st != nil {
		c.fail(st)
		return
	}
	m := cur.GetObjectMeta()
	if p := c.req.Preconditions; p != nil {
		if p.UID != "" && p.UID != m.UID {
			c.fail(conflictPrecondition(c.res, m.Name, fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", p.UID, m.UID)))
			return
		}
		if p.ResourceVersion != "" && p.ResourceVersion != m.ResourceVersion {
			c.fail(conflictPrecondition(c.res, m.Name, fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", p.ResourceVersion, m.ResourceVersion)))
			return
		}
	}
	op.old = cur
	grace := gracePeriod(cur, c.req.GracePeriodSeconds)
	if grace == 0 && len(m.Finalizers) == 0 {
		c.admit(cur, nil)
		s.etcd.Txn(deleteTxn(op.key, kv.ModRevision, cur), func(r etcd.TxnResult, err error) { op.done(cur, r, err) })
		return
	}
	if m.DeletionTimestamp != nil && model.Deref(m.DeletionGracePeriodSeconds, 0) <= grace {
		c.ok(cur) // already being deleted, no sooner than asked
		return
	}
	next := cur.DeepCopyObject()
	nm := next.GetObjectMeta()
	nm.DeletionTimestamp = model.Ptr(model.Time(s.h.WallClock()).Add(time.Duration(grace) * time.Second))
	nm.DeletionGracePeriodSeconds = model.Ptr(grace)
	data, err := encodeObject(next)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	c.admit(next, cur)
	s.etcd.Txn(txnPutIfMod(op.key, kv.ModRevision, data), func(r etcd.TxnResult, err error) { op.done(next, r, err) })
}

// done answers after the Txn, or retries on a conflict.
func (op *deleteOp) done(obj model.Object, r etcd.TxnResult, err error) {
	c := op.c
	switch {
	case err != nil:
		c.fail(etcdStatus(err))
		return
	case r.Succeeded:
		c.traceOwners(op.old, obj, obj == op.old) // the same object: removed, not marked
		if obj.GetObjectMeta().DeletionTimestamp != nil {
			obj.GetObjectMeta().ResourceVersion = formatRV(r.Revision)
		}
		c.ok(obj)
		return
	}
	kvs := r.FirstRange()
	// Try again from the value the Txn's failure branch read, without a
	// limit, as the real conditionalDelete loops (k8s.io/apiserver,
	// pkg/storage/etcd3/store.go, conditionalDelete: its `for {}` loop).
	if len(kvs) == 0 {
		c.fail(notFound(c.res, nameOfKey(op.key)))
		return
	}
	op.try(kvs[0])
}

// gracePeriod is the grace period of deleting obj: for a pod, the request's
// (or the pod's terminationGracePeriodSeconds), except 0 for a pod not
// bound to a node or already terminated, as Kubernetes does; 0 for every
// other kind.
func gracePeriod(obj model.Object, requested *int64) int64 {
	pod, ok := obj.(*model.Pod)
	if !ok || pod.Spec.NodeName == "" || model.IsPodTerminal(pod) {
		return 0
	}
	if requested != nil {
		return max(*requested, 0)
	}
	return model.Deref(pod.Spec.TerminationGracePeriodSeconds, model.DefaultTerminationGracePeriodSeconds)
}

// conflictPrecondition is 409 Conflict for a failed delete precondition.
func conflictPrecondition(res resourceInfo, name, msg string) *apiwire.Status {
	return errStatus(409, apiwire.ReasonConflict, "Operation cannot be fulfilled on %s %q: %s", qualified(res), name, msg)
}
