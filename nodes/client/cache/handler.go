package cache

import "github.com/kubesim/kubesim/model"

// ResourceEventHandler is told of an informer's store changes, as
// cache.ResourceEventHandler. Objects are the store's own: never modify
// them.
type ResourceEventHandler interface {
	// OnAdd: an object appeared; isInInitialList is true while the
	// informer's first list is being delivered.
	OnAdd(obj model.Object, isInInitialList bool)
	// OnUpdate: an object changed, or a relist or resync delivered it again
	// (then old and new may have the same resourceVersion).
	OnUpdate(oldObj, newObj model.Object)
	// OnDelete: an object went away. obj is a model.Object, or a
	// DeletedFinalStateUnknown when a relist found it gone without its
	// delete event.
	OnDelete(obj any)
}

// DeletedFinalStateUnknown is the tombstone of an object a relist found
// gone: its final state is unknown; Obj is the last state the informer had.
type DeletedFinalStateUnknown struct {
	Key string
	Obj model.Object
}

// ResourceEventHandlerFuncs adapts functions to ResourceEventHandler; nil
// functions are skipped.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj model.Object)
	UpdateFunc func(oldObj, newObj model.Object)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc.
func (f ResourceEventHandlerFuncs) OnAdd(obj model.Object, _ bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc.
func (f ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj model.Object) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc.
func (f ResourceEventHandlerFuncs) OnDelete(obj any) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// ObjectOf returns the object of an OnDelete argument, unwrapping a
// tombstone.
func ObjectOf(obj any) model.Object {
	switch o := obj.(type) {
	case model.Object:
		return o
	case DeletedFinalStateUnknown:
		return o.Obj
	case *DeletedFinalStateUnknown:
		return o.Obj
	}
	return nil
}

// OnObject returns handlers that call fn with the object of every event:
// the added object, the new state of an updated one, and the last known
// state of a deleted one (ObjectOf). It is the handler of a controller
// that queues an object's key whatever happened to it.
func OnObject(fn func(obj model.Object)) ResourceEventHandlerFuncs {
	return ResourceEventHandlerFuncs{
		AddFunc:    fn,
		UpdateFunc: func(_, newObj model.Object) { fn(newObj) },
		DeleteFunc: func(obj any) { fn(ObjectOf(obj)) },
	}
}

// OnChange returns handlers that call fn with an object's states before
// and after every event: (nil, new) for an add, (old, new) for an update
// and (last known, nil) for a delete. It is the handler of a controller
// that compares the two, such as the taint eviction controller.
func OnChange(fn func(oldObj, newObj model.Object)) ResourceEventHandlerFuncs {
	return ResourceEventHandlerFuncs{
		AddFunc:    func(obj model.Object) { fn(nil, obj) },
		UpdateFunc: fn,
		DeleteFunc: func(obj any) { fn(ObjectOf(obj), nil) },
	}
}
