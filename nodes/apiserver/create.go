package apiserver

import "github.com/kubesim/kubesim/nodes/etcd"

// create stores a new object: a Txn that puts only if the key has never
// been created (create_revision == 0), else 409 AlreadyExists.
func (s *Server) create(c *call) {
	obj, st := requestObject(c.req, c.res)
	if st != nil {
		c.fail(st)
		return
	}
	s.prepareForCreate(obj)
	if st := admitCreate(obj, c.res); st != nil {
		c.fail(st)
		return
	}
	data, err := encodeObject(obj)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	m := obj.GetObjectMeta()
	key := storageKey(c.res, m.Namespace, m.Name)
	c.admit(obj, nil)
	s.etcd.Txn(txnPutIfMod(key, 0, data), func(r etcd.TxnResult, err error) {
		switch {
		case err != nil:
			c.fail(etcdStatus(err))
		case !r.Succeeded:
			c.fail(alreadyExists(c.res, m.Name))
		default:
			m.ResourceVersion = formatRV(r.Revision)
			c.ok(obj)
		}
	})
}
