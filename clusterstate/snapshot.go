package clusterstate

import (
	"sort"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// Snapshot is the committed state of the cluster at one revision: every
// object whose last change at or before Rev is a put. It is a view of its
// History, so it costs nothing to take, and it stays right while the
// History grows (later changes have later revisions).
//
// Resources are named by their plural resource name ("pods",
// "deployments", a custom kind's plural such as "widgets"), the namespace
// is "" for a cluster-scoped kind (nodes). Every object returned is
// decoded afresh, so it is the caller's to modify. An object whose stored
// bytes do not decode is left out, and its History's Err reports it.
type Snapshot struct {
	// Rev is the revision; 0 for the empty state before the first.
	Rev int64
	// At and Seq are the virtual time and trace position of the first
	// Apply of Rev: the state held from then until the next revision.
	At  sim.Time
	Seq uint64
	h   *History
}

// Event returns a trace event that carries only the snapshot's position
// (At and Seq), to record an offense at it with checks.Recorder.Add.
func (s Snapshot) Event() *sim.Event { return &sim.Event{At: s.At, Seq: s.Seq} }

// Get returns the object namespace/name of resource (namespace "" for a
// cluster-scoped kind), and whether it existed at the snapshot's revision
// (and decoded).
func (s Snapshot) Get(resource, namespace, name string) (model.Object, bool) {
	if s.h == nil {
		return nil, false
	}
	o := s.h.object(resource, model.NamespacedName{Namespace: namespace, Name: name})
	if o == nil {
		return nil, false
	}
	return s.decodeAt(resource, o)
}

// List returns the objects of resource in namespace ("" for every
// namespace, and for a cluster-scoped kind) at the snapshot's revision,
// sorted by namespace, then name.
func (s Snapshot) List(resource, namespace string) []model.Object {
	if s.h == nil {
		return nil
	}
	ri := s.h.byRes[resource]
	if ri == nil {
		return nil
	}
	var out []model.Object
	for _, id := range ri.sortedKeys() {
		if namespace != "" && id.Namespace != namespace {
			continue
		}
		if obj, ok := s.decodeAt(resource, ri.objects[id]); ok {
			out = append(out, obj)
		}
	}
	return out
}

// Resources returns the names of the resources that have at least one
// object at the snapshot's revision, sorted.
func (s Snapshot) Resources() []string {
	if s.h == nil {
		return nil
	}
	var out []string
	for _, res := range sim.SortedKeys(s.h.byRes) {
		ri := s.h.byRes[res]
		for _, id := range ri.keys {
			if i := ri.objects[id].at(s.Rev); i >= 0 && !ri.objects[id].changes[i].deleted {
				out = append(out, res)
				break
			}
		}
	}
	return out
}

// decodeAt decodes o as it was at the snapshot's revision; false when it
// did not exist then or does not decode.
func (s Snapshot) decodeAt(resource string, o *object) (model.Object, bool) {
	i := o.at(s.Rev)
	if i < 0 || o.changes[i].deleted {
		return nil, false
	}
	obj, err := s.h.decode(resource, o, i)
	return obj, err == nil
}

// at returns the index of o's last change at or before rev, or -1.
func (o *object) at(rev int64) int {
	return sort.Search(len(o.changes), func(i int) bool { return o.changes[i].rev > rev }) - 1
}

// sortedKeys returns the resource's object names, sorted by namespace,
// then name.
func (ri *resourceIndex) sortedKeys() []model.NamespacedName {
	if !ri.sorted {
		sort.Slice(ri.keys, func(i, j int) bool {
			a, b := ri.keys[i], ri.keys[j]
			if a.Namespace != b.Namespace {
				return a.Namespace < b.Namespace
			}
			return a.Name < b.Name
		})
		ri.sorted = true
	}
	return ri.keys
}
