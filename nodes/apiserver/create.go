package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Name generation, as apiserver's SimpleNameGenerator and the registry's
// create: a generated name is GenerateName (cut to maxGeneratedNameLength)
// plus generatedNameLength characters of nameAlphabet (utilrand.String's,
// without vowels and confusable characters), and a create whose generated
// name already exists is tried again with a fresh name, at most
// maxNameGenerationAttempts times in all (the RetryGenerateName feature,
// on by default since Kubernetes 1.30).
const (
	nameAlphabet              = "bcdfghjklmnpqrstvwxz2456789"
	generatedNameLength       = 5
	maxGeneratedNameLength    = 63 - generatedNameLength
	maxNameGenerationAttempts = 8
)

// createOp is one create across its name-generation attempts.
type createOp struct {
	c        *call
	obj      model.Object
	attempts int
	// ip is a Service's cluster IP allocation (clusterip.go).
	ip *clusterIPAlloc
}

// create stores a new object: a Txn that puts only if the key has never
// been created (create_revision == 0), else 409 AlreadyExists. An object
// with an empty name and a generateName is named by the server first.
func (s *Server) create(c *call) {
	obj, st := requestObject(c.req, c.res)
	if st != nil {
		c.fail(st)
		return
	}
	s.prepareForCreate(obj)
	prepareCustomCreate(obj, c.res)
	op := &createOp{c: c, obj: obj}
	op.maybeGenerateName()
	if st := admitCreate(obj, c.res, s.cfg); st != nil {
		c.fail(st)
		return
	}
	if svc, ok := obj.(*model.Service); ok {
		if st := op.startClusterIP(svc); st != nil {
			c.fail(st)
			return
		}
	}
	op.store()
}

// maybeGenerateName names an object whose client sent no name but a
// generateName, drawing from the replica's seeded
// "apiserver/generate-name" stream; on a retry it draws a new name.
func (op *createOp) maybeGenerateName() {
	if !op.generated() {
		return
	}
	m := op.obj.GetObjectMeta()
	base := m.GenerateName
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	rnd := op.c.s.h.Rand("apiserver/generate-name")
	b := []byte(base)
	for i := 0; i < generatedNameLength; i++ {
		b = append(b, nameAlphabet[rnd.IntN(len(nameAlphabet))])
	}
	m.Name = string(b)
}

// store writes the object, generating a new name on AlreadyExists when the
// server chose the name.
func (op *createOp) store() {
	op.attempts++
	op.write()
}

// write is one try of store: a Service's taken cluster IP is refused when
// the client asked for it, else the next candidate is tried.
func (op *createOp) write() {
	c, obj := op.c, op.obj
	data, err := encodeObject(obj)
	if err != nil {
		c.fail(internalError(err))
		return
	}
	m := obj.GetObjectMeta()
	key := storageKey(c.res, m.Namespace, m.Name)
	txn := txnPutIfMod(key, 0, data)
	svc, isSvc := obj.(*model.Service)
	if isSvc {
		if txn, err = serviceCreateTxn(key, data, svc); err != nil {
			c.fail(internalError(err))
			return
		}
	}
	c.admit(obj, nil)
	c.s.etcd.Txn(txn, func(r etcd.TxnResult, err error) {
		switch {
		case err != nil:
			c.fail(etcdStatus(err))
		case !r.Succeeded && isSvc && !nameTaken(r) && op.ip.requested:
			c.fail(clusterIPInvalid(c.res, svc, "provided IP is already allocated"))
		case !r.Succeeded && isSvc && !nameTaken(r):
			if st := op.nextClusterIP(svc); st != nil {
				c.fail(st)
				return
			}
			op.write()
		case !r.Succeeded && op.generated() && op.attempts < maxNameGenerationAttempts:
			op.maybeGenerateName()
			op.store()
		case !r.Succeeded && op.generated():
			c.fail(generatedNameConflict(c.res, m.Name, m.GenerateName))
		case !r.Succeeded:
			c.fail(alreadyExists(c.res, m.Name))
		default:
			m.ResourceVersion = formatRV(r.Revision)
			c.traceOwners(nil, obj, false)
			c.ok(obj)
		}
	})
}

// generated reports whether the server generated the object's name (the
// client sent none).
func (op *createOp) generated() bool {
	return op.obj.GetObjectMeta().GenerateName != "" && requestName(op.c.req) == ""
}

// generatedNameConflict is apierrors.NewGeneratedNameConflict: 409
// AlreadyExists after every generated name was taken.
func generatedNameConflict(res resourceInfo, name, generateName string) *apiwire.Status {
	return errStatus(409, apiwire.ReasonAlreadyExists,
		"%s %q already exists, the server was not able to generate a unique name for the object (generateName %q)",
		qualified(res), name, generateName)
}
