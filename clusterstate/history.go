package clusterstate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// registryRoot is the etcd prefix under which API servers store objects:
// "/registry/<resource>/<namespace>/<name>", "/registry/<resource>/<name>"
// for a cluster-scoped kind, and "/registry/<group>/<plural>/..." for a
// custom kind.
const registryRoot = "/registry/"

// History is the committed history of every API object of one run, built
// from the etcd members' Apply events. Every member applies the same
// entries, so the first Apply with changes at a revision defines it, and
// later Applies at or below the highest revision seen are skipped.
//
// Observe keeps each change's bytes as they are; reads decode them, so a
// long run costs little time while it runs. A History is not safe for
// concurrent use, as nothing in a world is.
type History struct {
	rev   int64
	revs  []revision                // every revision with changes, ascending
	byRes map[string]*resourceIndex // resource name -> its objects
	err   *DecodeError
}

// revision is where a revision was first applied.
type revision struct {
	rev int64
	at  sim.Time
	seq uint64
}

// resourceIndex holds the objects of one resource.
type resourceIndex struct {
	objects map[model.NamespacedName]*object
	keys    []model.NamespacedName // every object ever seen; sorted when sorted is set
	sorted  bool
}

// object is the committed changes of one object, by ascending revision.
type object struct {
	id      model.NamespacedName
	changes []change
}

// change is one committed change of an object: a put of value, or a
// delete.
type change struct {
	rev     int64 // the key's mod revision
	at      sim.Time
	seq     uint64
	deleted bool
	value   string
}

// New returns an empty History. Subscribe its Observe to a world before
// the world runs (w.Subscribe(h.Observe)), or call Observe from a check's.
func New() *History {
	return &History{byRes: map[string]*resourceIndex{}}
}

// Observe consumes one trace event: an etcdtrace.Apply that commits a new
// revision adds its API object changes; every other event is ignored.
// Non-registry keys (the KV workload's) are ignored too.
func (h *History) Observe(e *sim.Event) {
	d, ok := e.Data.(*etcdtrace.Apply)
	if !ok || len(d.Changes) == 0 || d.Rev <= h.rev {
		return
	}
	h.rev = d.Rev
	h.revs = append(h.revs, revision{rev: d.Rev, at: e.At, seq: e.Seq})
	for i := range d.Changes {
		ch := &d.Changes[i]
		res, id, ok := splitKey(ch.Key)
		if !ok {
			continue
		}
		h.add(res, id, change{rev: ch.ModRev, at: e.At, seq: e.Seq,
			deleted: ch.Type == etcdtrace.ChangeDelete, value: ch.Value})
	}
}

// add appends c to the changes of object id of resource res.
func (h *History) add(res string, id model.NamespacedName, c change) {
	ri := h.byRes[res]
	if ri == nil {
		ri = &resourceIndex{objects: map[model.NamespacedName]*object{}, sorted: true}
		h.byRes[res] = ri
	}
	o := ri.objects[id]
	if o == nil {
		o = &object{id: id}
		ri.objects[id] = o
		ri.keys = append(ri.keys, id)
		ri.sorted = false
	}
	if n := len(o.changes); n > 0 && o.changes[n-1].rev >= c.rev {
		o.changes[n-1] = c // one entry changing a key twice: the last change stands
		return
	}
	o.changes = append(o.changes, c)
}

// splitKey splits an etcd key into the resource name and the object's
// namespace and name. A custom kind's key has its group first, and a
// group has a dot, which no built-in resource name has. A key with one
// segment after the resource is a cluster-scoped object's.
func splitKey(k string) (string, model.NamespacedName, bool) {
	rest, ok := strings.CutPrefix(k, registryRoot)
	if !ok {
		return "", model.NamespacedName{}, false
	}
	res, rest, ok := strings.Cut(rest, "/")
	if ok && strings.Contains(res, ".") {
		res, rest, ok = strings.Cut(rest, "/")
	}
	if !ok || res == "" || rest == "" {
		return "", model.NamespacedName{}, false
	}
	ns, name, namespaced := strings.Cut(rest, "/")
	if !namespaced {
		return res, model.NamespacedName{Name: rest}, true
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		return "", model.NamespacedName{}, false
	}
	return res, model.NamespacedName{Namespace: ns, Name: name}, true
}

// Revision returns the highest revision committed so far, 0 before the
// first.
func (h *History) Revision() int64 { return h.rev }

// Final returns the state at the latest revision.
func (h *History) Final() Snapshot { return h.AtRevision(h.rev) }

// AtRevision returns the state at revision rev: every object's last
// change at or before it. A revision past the latest gives the latest
// state (its Rev is the latest revision); one before the first gives the
// empty state of revision 0.
func (h *History) AtRevision(rev int64) Snapshot {
	rev = min(rev, h.rev)
	i := sort.Search(len(h.revs), func(i int) bool { return h.revs[i].rev > rev }) - 1
	if i < 0 {
		return Snapshot{h: h}
	}
	return Snapshot{Rev: rev, At: h.revs[i].at, Seq: h.revs[i].seq, h: h}
}

// At returns the committed state as of virtual time t: that of the last
// revision first applied at or before t (the empty state of revision 0
// before the first). Its At is when that revision was applied, not t.
func (h *History) At(t sim.Time) Snapshot {
	i := sort.Search(len(h.revs), func(i int) bool { return h.revs[i].at > t }) - 1
	if i < 0 {
		return Snapshot{h: h}
	}
	r := h.revs[i]
	return Snapshot{Rev: r.rev, At: r.at, Seq: r.seq, h: h}
}

// Version is one committed version of an object: the revision that wrote
// it, when and where in the trace the first member applied it, and the
// object as it then was.
type Version struct {
	// Rev is the revision of the change, the object's resourceVersion.
	Rev int64
	// At and Seq are the virtual time and trace position of the first
	// Apply of the change.
	At  sim.Time
	Seq uint64
	// Deleted is set for a deletion; Object is then nil.
	Deleted bool
	// Object is the object as stored, decoded afresh (the caller's to
	// modify), with its resourceVersion set to Rev. It is nil for a
	// deletion and when the stored bytes do not decode (Err says why).
	Object model.Object
	// Err is the decode error of a put whose bytes do not decode.
	Err error
}

// Event returns a trace event that carries only the version's position
// (At and Seq), to record an offense at it with checks.Recorder.Add.
func (v Version) Event() *sim.Event { return &sim.Event{At: v.At, Seq: v.Seq} }

// Versions returns every committed version of the object
// namespace/name of resource (namespace "" for a cluster-scoped one), in
// revision order: its creation, each update, its deletion, and any later
// re-creation. It is empty for an object never written.
func (h *History) Versions(resource, namespace, name string) []Version {
	o := h.object(resource, model.NamespacedName{Namespace: namespace, Name: name})
	if o == nil {
		return nil
	}
	out := make([]Version, len(o.changes))
	for i, c := range o.changes {
		v := Version{Rev: c.rev, At: c.at, Seq: c.seq, Deleted: c.deleted}
		if !c.deleted {
			v.Object, v.Err = h.decode(resource, o, i)
		}
		out[i] = v
	}
	return out
}

// Names returns every object of resource in namespace ("" for every
// namespace, and for a cluster-scoped kind) that was ever written, deleted
// or not, sorted by namespace, then name: the objects whose Versions a
// judge of the whole history walks.
func (h *History) Names(resource, namespace string) []model.NamespacedName {
	ri := h.byRes[resource]
	if ri == nil {
		return nil
	}
	var out []model.NamespacedName
	for _, id := range ri.sortedKeys() {
		if namespace == "" || id.Namespace == namespace {
			out = append(out, id)
		}
	}
	return out
}

// object returns the changes of one object, or nil.
func (h *History) object(resource string, id model.NamespacedName) *object {
	ri := h.byRes[resource]
	if ri == nil {
		return nil
	}
	return ri.objects[id]
}

// decode decodes the i-th change of o (a put) and sets its
// resourceVersion, as an API server does when it reads the key. A
// failure is returned and, if it is the first, kept for Err.
func (h *History) decode(resource string, o *object, i int) (model.Object, error) {
	c := o.changes[i]
	obj, err := model.Decode([]byte(c.value))
	if err != nil {
		derr := &DecodeError{Resource: resource, Namespace: o.id.Namespace, Name: o.id.Name, Rev: c.rev, At: c.at, Seq: c.seq, Err: err}
		if h.err == nil {
			h.err = derr
		}
		return nil, derr
	}
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(c.rev, 10)
	return obj, nil
}

// Err returns the first decode error any read met (a *DecodeError), or
// nil. Reads leave an object whose stored bytes do not decode out of
// what they return (Versions reports it in Version.Err), so a caller that
// judges what it read should check Err afterwards; Invariant does.
// Kubesim's API servers store only what model.Encode writes, so an error
// here means a stored object is corrupt.
func (h *History) Err() error {
	if h.err == nil {
		return nil
	}
	return h.err
}

// DecodeError is a stored object whose bytes do not decode, with where
// its change was committed.
type DecodeError struct {
	Resource, Namespace, Name string
	Rev                       int64
	At                        sim.Time
	Seq                       uint64
	Err                       error
}

// Error names the object, its revision and the decode error.
func (e *DecodeError) Error() string {
	id := e.Name
	if e.Namespace != "" {
		id = e.Namespace + "/" + e.Name
	}
	return fmt.Sprintf("%s %s at revision %d does not decode: %v", e.Resource, id, e.Rev, e.Err)
}

// Unwrap returns the decode error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Event returns a trace event that carries only the position of the
// change (At and Seq), to record an offense at it.
func (e *DecodeError) Event() *sim.Event { return &sim.Event{At: e.At, Seq: e.Seq} }
