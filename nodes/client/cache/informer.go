package cache

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// InformerConfig configures an Informer: its reflector's configuration and
// the resync period.
type InformerConfig struct {
	ReflectorConfig
	// ResyncPeriod, when positive, calls OnUpdate(obj, obj) for every stored
	// object that often. Off (0) by default, as for most controllers.
	ResyncPeriod time.Duration
}

// Informer is a store kept by a reflector, telling its handlers of every
// change, as a SharedIndexInformer without indexes. Its store changes are
// traced as apitrace.InformerEvent.
type Informer struct {
	c        *client.Client
	cfg      InformerConfig
	store    *Store
	refl     *Reflector
	handlers []ResourceEventHandler
	resync   bool
	synced   bool
}

// NewInformer makes an informer of cfg.Resource on c. Start it with Run.
func NewInformer(c *client.Client, cfg InformerConfig) *Informer {
	i := &Informer{c: c, store: NewStore()}
	if cfg.Name == "" {
		cfg.Name = c.Name() + "/" + cfg.Resource
	}
	i.cfg = cfg
	i.refl = NewReflector(c, cfg.ReflectorConfig, i)
	return i
}

// AddEventHandler registers h. Added to a synced informer, h is first told
// of every stored object through OnAdd, in key order.
func (i *Informer) AddEventHandler(h ResourceEventHandler) {
	i.handlers = append(i.handlers, h)
	if i.synced {
		for _, obj := range i.store.List() {
			h.OnAdd(obj, true)
		}
	}
}

// Run starts the reflector (and the resync timer).
func (i *Informer) Run() {
	i.refl.Run()
	if i.cfg.ResyncPeriod > 0 && !i.resync {
		i.resync = true
		h := i.c.Host()
		var t *sim.Timer
		t = h.NewTimer("informer-resync", func() {
			if i.synced {
				for _, obj := range i.store.List() {
					for _, hd := range i.handlers {
						hd.OnUpdate(obj, obj)
					}
				}
			}
			t.Reset(i.cfg.ResyncPeriod)
		})
		t.Reset(i.cfg.ResyncPeriod)
	}
}

// Stop stops the reflector.
func (i *Informer) Stop() { i.refl.Stop() }

// HasSynced reports whether the first list has been delivered.
func (i *Informer) HasSynced() bool { return i.synced }

// GetStore returns the store. Never modify it or its objects.
func (i *Informer) GetStore() *Store { return i.store }

// Lister returns a lister over the store.
func (i *Informer) Lister() Lister { return NewLister(i.store) }

// Reflector returns the informer's reflector.
func (i *Informer) Reflector() *Reflector { return i.refl }

// LastSyncResourceVersion returns the last resourceVersion seen.
func (i *Informer) LastSyncResourceVersion() string { return i.refl.LastSyncResourceVersion() }

// Name returns the informer's name in the trace.
func (i *Informer) Name() string { return i.cfg.Name }

// EmitStore traces the whole store as apitrace.Store, sorted by key, for
// end-of-run checks.
func (i *Informer) EmitStore() {
	ev := &apitrace.Store{Informer: i.cfg.Name, Resource: i.cfg.Resource, RV: i.LastSyncResourceVersion()}
	for _, k := range i.store.ListKeys() {
		obj, _ := i.store.GetByKey(k)
		ev.Items = append(ev.Items, apitrace.Item{Key: k, RV: obj.GetObjectMeta().ResourceVersion, Value: i.c.Config().ValueOf(obj)})
	}
	i.c.Host().Emit(ev)
}

func (i *Informer) emit(typ, key, rv string, obj model.Object) {
	i.c.Host().Emit(&apitrace.InformerEvent{Informer: i.cfg.Name, Resource: i.cfg.Resource, Type: typ,
		Key: key, RV: rv, Value: i.c.Config().ValueOf(obj)})
}

// Add applies an ADDED event (an update if the key is known, as after a
// re-watch from "").
func (i *Informer) Add(obj model.Object) { i.upsert(obj, false) }

// Update applies a MODIFIED event.
func (i *Informer) Update(obj model.Object) { i.upsert(obj, false) }

func (i *Informer) upsert(obj model.Object, initial bool) {
	key := MetaNamespaceKeyFunc(obj)
	rv := obj.GetObjectMeta().ResourceVersion
	old, ok := i.store.GetByKey(key)
	i.store.Add(obj)
	if ok {
		if old.GetObjectMeta().ResourceVersion != rv {
			i.emit("update", key, rv, obj)
		}
		for _, h := range i.handlers {
			h.OnUpdate(old, obj)
		}
		return
	}
	i.emit("add", key, rv, obj)
	for _, h := range i.handlers {
		h.OnAdd(obj, initial)
	}
}

// Delete applies a DELETED event.
func (i *Informer) Delete(obj model.Object) {
	key := MetaNamespaceKeyFunc(obj)
	if _, ok := i.store.GetByKey(key); !ok {
		return
	}
	i.store.Delete(obj)
	i.emit("delete", key, obj.GetObjectMeta().ResourceVersion, obj)
	for _, h := range i.handlers {
		h.OnDelete(obj)
	}
}

// Replace applies a list: adds and updates for its items (in key order),
// then deletions, as tombstones, of stored objects it no longer has. A
// tombstone's traced resourceVersion is the list's.
func (i *Informer) Replace(items []model.Object, rv string) {
	initial := !i.synced
	fresh := NewStore()
	for _, obj := range items {
		fresh.Add(obj)
	}
	for _, obj := range fresh.List() {
		i.upsert(obj, initial)
	}
	for _, key := range i.store.ListKeys() {
		if _, ok := fresh.GetByKey(key); ok {
			continue
		}
		old, _ := i.store.GetByKey(key)
		i.store.Delete(old)
		i.emit("delete", key, rv, old)
		for _, h := range i.handlers {
			h.OnDelete(DeletedFinalStateUnknown{Key: key, Obj: old})
		}
	}
	i.synced = true
}
