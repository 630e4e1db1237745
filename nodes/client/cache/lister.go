package cache

import "github.com/kubesim/kubesim/model"

// Lister reads an informer's store, as a generated lister does. Returned
// objects are the store's own: read them, never modify them (DeepCopy
// first).
type Lister struct{ s *Store }

// NewLister makes a lister over s.
func NewLister(s *Store) Lister { return Lister{s: s} }

// List returns the objects whose labels match sel, in key order.
func (l Lister) List(sel model.Selector) []model.Object {
	return l.filter("", sel)
}

// Get returns the object stored under key ("namespace/name" or "name").
func (l Lister) Get(key string) (model.Object, bool) { return l.s.GetByKey(key) }

// ByNamespace returns the lister of one namespace.
func (l Lister) ByNamespace(namespace string) NamespaceLister {
	return NamespaceLister{l: l, namespace: namespace}
}

func (l Lister) filter(namespace string, sel model.Selector) []model.Object {
	var out []model.Object
	for _, obj := range l.s.List() {
		m := obj.GetObjectMeta()
		if (namespace == "" || m.Namespace == namespace) && sel.Matches(m.Labels) {
			out = append(out, obj)
		}
	}
	return out
}

// NamespaceLister reads one namespace of a store.
type NamespaceLister struct {
	l         Lister
	namespace string
}

// List returns the namespace's objects whose labels match sel, in key order.
func (n NamespaceLister) List(sel model.Selector) []model.Object { return n.l.filter(n.namespace, sel) }

// Get returns the named object of the namespace.
func (n NamespaceLister) Get(name string) (model.Object, bool) {
	return n.l.s.GetByKey(model.NamespacedName{Namespace: n.namespace, Name: name}.String())
}
