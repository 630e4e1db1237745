package cache

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// MetaNamespaceKeyFunc returns obj's key: "namespace/name", or "name" for a
// cluster-scoped object.
func MetaNamespaceKeyFunc(obj model.Object) string { return model.KeyOf(obj).String() }

// Store is a map of objects by key with sorted listing, as cache.Store
// (without locks: the simulated world has one goroutine). Objects in the
// store are shared with its readers, who must not modify them.
type Store struct {
	items map[string]model.Object
}

// NewStore makes an empty store.
func NewStore() *Store { return &Store{items: make(map[string]model.Object)} }

// Add puts obj in the store.
func (s *Store) Add(obj model.Object) { s.items[MetaNamespaceKeyFunc(obj)] = obj }

// Update puts obj in the store.
func (s *Store) Update(obj model.Object) { s.Add(obj) }

// Delete removes obj's key.
func (s *Store) Delete(obj model.Object) { delete(s.items, MetaNamespaceKeyFunc(obj)) }

// Replace replaces the whole content with items.
func (s *Store) Replace(items []model.Object, _ string) {
	s.items = make(map[string]model.Object, len(items))
	for _, obj := range items {
		s.Add(obj)
	}
}

// Get returns the stored object with obj's key.
func (s *Store) Get(obj model.Object) (model.Object, bool) {
	return s.GetByKey(MetaNamespaceKeyFunc(obj))
}

// GetByKey returns the object stored under key.
func (s *Store) GetByKey(key string) (model.Object, bool) {
	obj, ok := s.items[key]
	return obj, ok
}

// ListKeys returns the keys in ascending order.
func (s *Store) ListKeys() []string { return sim.SortedKeys(s.items) }

// List returns the objects in key order.
func (s *Store) List() []model.Object {
	out := make([]model.Object, 0, len(s.items))
	for _, k := range s.ListKeys() {
		out = append(out, s.items[k])
	}
	return out
}

// Len returns the number of objects.
func (s *Store) Len() int { return len(s.items) }
