package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// subresource names the subresource a verb writes: "status" for
// update-status, "binding" for bind.
func subresource(v apiwire.Verb) string {
	switch v {
	case apiwire.VerbUpdateStatus:
		return "status"
	case apiwire.VerbBind:
		return "binding"
	}
	return ""
}

// admit emits apitrace.Admit just before a write goes to etcd: obj is what
// is written (for a delete, the object deleted), old the stored object of
// an update (nil for create).
func (c *call) admit(obj, old model.Object) {
	m := obj.GetObjectMeta()
	e := &apitrace.Admit{
		Server:    c.s.cfg.Name,
		User:      c.req.User,
		Verb:      string(c.req.Verb),
		Resource:  c.res.Name,
		Key:       traceKey(c.res, m.Namespace, m.Name),
		NodeName:  nodeOf(obj),
		Subresrc:  subresource(c.req.Verb),
		Namespace: m.Namespace,
		Group:     c.res.Group,
	}
	if old != nil {
		e.OldNode = nodeOf(old)
	}
	c.s.h.Emit(e)
}
