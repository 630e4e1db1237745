// Package fakeapi is a tiny in-memory API server for the client packages'
// tests: it serves apiwire on apiwire.Port with a map of objects, a
// revision counter, a bounded event log (410 Gone for resourceVersions
// that left it) and watch streams with Seq numbers. Replicas share one
// Backend, as API servers share etcd. It has no authorization, admission
// or validation; it does not depend on nodes/apiserver.
package fakeapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Event is one change in the Backend's log.
type Event struct {
	Rev      int64
	Resource string
	Type     apiwire.EventType
	Object   model.Object
}

// Backend is the storage shared by the replicas: objects by storage key,
// the revision, and the last Window events.
type Backend struct {
	Rev     int64
	Objects map[string]model.Object
	Log     []Event
	// Window is how many events the log keeps (default 100).
	Window int
	// BookmarkEvery, when set, makes servers send bookmarks that often.
	BookmarkEvery time.Duration
	servers       []*Server
}

// NewBackend makes an empty backend.
func NewBackend() *Backend {
	return &Backend{Objects: map[string]model.Object{}, Window: 100}
}

// Compact drops the whole event log: every watch from an older revision
// gets 410 Gone.
func (b *Backend) Compact() { b.Log = nil }

// Boot is a sim.HostSpec.Boot that runs a replica on h.
func (b *Backend) Boot(h *sim.Host) {
	s := &Server{b: b, h: h, inc: h.Incarnation()}
	b.servers = append(b.servers, s)
	h.Expose("fakeapi", s)
	sim.Serve(h, apiwire.Port, s.serve)
	if b.BookmarkEvery > 0 {
		var t *sim.Timer
		t = h.NewTimer("fakeapi-bookmark", func() {
			s.bookmarks()
			t.Reset(b.BookmarkEvery)
		})
		t.Reset(b.BookmarkEvery)
	}
}

// ServerOf returns the live replica on h.
func ServerOf(h *sim.Host) *Server {
	s, _ := h.Exposed("fakeapi").(*Server)
	return s
}

// Server is one replica: its watch streams and fault knobs.
type Server struct {
	b       *Backend
	h       *sim.Host
	inc     uint64
	watches []*watch
	// Unavailable answers every request with 503.
	Unavailable bool
	// Initializing answers the next n requests with the 429 of a watch
	// cache that is (re)initializing, which carries a Retry-After of 1 s.
	Initializing int
	// Silent never answers requests (its process still acknowledges
	// PINGs: a live server that does not answer).
	Silent bool
	// Delay holds every answer back this long (a slow server).
	Delay time.Duration
	// WatchLifetime, when positive, closes every watch stream cleanly
	// (apiwire.Closed) this long after the server received its request.
	WatchLifetime time.Duration
	// DropWatchEvents drops the next n watch events (a Seq gap).
	DropWatchEvents int
	// Requests counts the requests served, by verb.
	Requests map[apiwire.Verb]int
	// ListRVs records the resourceVersion of every list served, and
	// ListLimits its limit.
	ListRVs    []string
	ListLimits []int64
	// ExpireContinues answers the next n lists with a continue token with
	// 410 Gone (an expired continue).
	ExpireContinues int
}

type watch struct {
	caller    sim.HostID
	port      string
	id        uint64
	resource  string
	namespace string
	selector  model.Selector
	bookmarks bool
	seq       uint64
}

func (s *Server) alive() bool { return s.h.Up() && s.h.Incarnation() == s.inc }

func storageKey(resource, ns, name string) string {
	return resource + "/" + model.NamespacedName{Namespace: ns, Name: name}.String()
}

func status(code int, reason apiwire.StatusReason, msg string) apiwire.Status {
	return apiwire.Status{Code: code, Reason: reason, Message: msg}
}

func (s *Server) serve(q *sim.Request) {
	if s.Delay > 0 {
		s.h.After(s.Delay, "fakeapi-delay", func() { s.serveNow(q) })
		return
	}
	s.serveNow(q)
}

func (s *Server) serveNow(q *sim.Request) {
	req, ok := q.Body.(*apiwire.Request)
	if !ok || s.Silent {
		return
	}
	if s.Requests == nil {
		s.Requests = map[apiwire.Verb]int{}
	}
	s.Requests[req.Verb]++
	resp := &apiwire.Response{Server: s.h.Name(), Status: status(200, "", "")}
	if s.Unavailable {
		resp.Status = status(503, apiwire.ReasonServiceUnavailable, "unavailable")
		q.Reply(resp)
		return
	}
	if s.Initializing > 0 {
		s.Initializing--
		resp.Status = status(429, apiwire.ReasonTooManyRequests, "storage is (re)initializing")
		resp.Status.RetryAfterSeconds = 1
		q.Reply(resp)
		return
	}
	b := s.b
	key := storageKey(req.Resource, req.Namespace, req.Name)
	cur := b.Objects[key]
	switch req.Verb {
	case apiwire.VerbCreate:
		if cur != nil {
			resp.Status = status(409, apiwire.ReasonAlreadyExists, req.Name+" already exists")
			break
		}
		obj := req.Object
		m := obj.GetObjectMeta()
		m.Namespace = req.Namespace
		if m.UID == "" {
			m.UID = model.UID("uid-" + strconv.FormatInt(b.Rev+1, 10))
		}
		resp.Object = b.commit(req.Resource, key, apiwire.Added, obj)
	case apiwire.VerbGet:
		if cur == nil {
			resp.Status = status(404, apiwire.ReasonNotFound, req.Name+" not found")
			break
		}
		resp.Object = cur.DeepCopyObject()
	case apiwire.VerbList:
		s.ListRVs = append(s.ListRVs, req.ResourceVersion)
		s.ListLimits = append(s.ListLimits, req.Limit)
		if req.Continue != "" && s.ExpireContinues > 0 {
			s.ExpireContinues--
			resp.Status = status(410, apiwire.ReasonGone, "The provided continue parameter is too old")
			break
		}
		s.list(req, resp)
	case apiwire.VerbUpdate, apiwire.VerbUpdateStatus:
		if cur == nil {
			resp.Status = status(404, apiwire.ReasonNotFound, req.Name+" not found")
			break
		}
		rv := req.Object.GetObjectMeta().ResourceVersion
		if rv != "" && rv != cur.GetObjectMeta().ResourceVersion {
			resp.Status = status(409, apiwire.ReasonConflict, "the object has been modified")
			break
		}
		req.Object.GetObjectMeta().UID = cur.GetObjectMeta().UID
		resp.Object = b.commit(req.Resource, key, apiwire.Modified, req.Object)
	case apiwire.VerbPatch:
		if cur == nil {
			resp.Status = status(404, apiwire.ReasonNotFound, req.Name+" not found")
			break
		}
		obj, err := mergePatch(cur, req.Patch)
		if err != nil {
			resp.Status = status(422, apiwire.ReasonInvalid, err.Error())
			break
		}
		resp.Object = b.commit(req.Resource, key, apiwire.Modified, obj)
	case apiwire.VerbDelete:
		if cur == nil {
			resp.Status = status(404, apiwire.ReasonNotFound, req.Name+" not found")
			break
		}
		if p := req.Preconditions; p != nil && p.ResourceVersion != "" && p.ResourceVersion != cur.GetObjectMeta().ResourceVersion {
			resp.Status = status(409, apiwire.ReasonConflict, "precondition failed")
			break
		}
		resp.Object = b.commit(req.Resource, key, apiwire.Deleted, cur.DeepCopyObject())
	case apiwire.VerbBind:
		pod, ok := cur.(*model.Pod)
		if !ok {
			resp.Status = status(404, apiwire.ReasonNotFound, req.Name+" not found")
			break
		}
		if pod.Spec.NodeName != "" {
			resp.Status = status(409, apiwire.ReasonConflict, "already bound")
			break
		}
		np := pod.DeepCopy()
		np.Spec.NodeName = req.NodeName
		resp.Object = b.commit(req.Resource, key, apiwire.Modified, np)
	case apiwire.VerbWatch:
		q.Reply(resp)
		s.startWatch(req, q.From)
		return
	case apiwire.VerbCancelWatch:
		for i, w := range s.watches {
			if w.caller == q.From && w.id == req.WatchID {
				s.watches = append(s.watches[:i], s.watches[i+1:]...)
				break
			}
		}
	default:
		resp.Status = status(400, "BadRequest", "unknown verb")
	}
	q.Reply(resp)
}

// commit writes obj (or deletes it) at the next revision, logs the event
// and sends it to every replica's matching watches. It returns a copy.
func (b *Backend) commit(resource, key string, typ apiwire.EventType, obj model.Object) model.Object {
	b.Rev++
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(b.Rev, 10)
	if typ == apiwire.Deleted {
		delete(b.Objects, key)
	} else {
		b.Objects[key] = obj
	}
	b.Log = append(b.Log, Event{Rev: b.Rev, Resource: resource, Type: typ, Object: obj.DeepCopyObject()})
	if len(b.Log) > b.Window {
		b.Log = b.Log[len(b.Log)-b.Window:]
	}
	for _, s := range b.servers {
		if !s.alive() {
			continue
		}
		for _, w := range s.watches {
			s.send(w, resource, typ, obj)
		}
	}
	return obj.DeepCopyObject()
}

func (s *Server) list(req *apiwire.Request, resp *apiwire.Response) {
	sel, err := model.ParseSelector(req.LabelSelector)
	if err != nil {
		resp.Status = status(400, "BadRequest", err.Error())
		return
	}
	prefix := req.Resource + "/"
	if req.Namespace != "" {
		prefix += req.Namespace + "/"
	}
	for _, k := range sim.SortedKeys(s.b.Objects) {
		if !strings.HasPrefix(k, prefix) || (req.Continue != "" && k <= req.Continue) {
			continue
		}
		obj := s.b.Objects[k]
		if !sel.Matches(obj.GetObjectMeta().Labels) {
			continue
		}
		if req.Limit > 0 && int64(len(resp.Items)) == req.Limit {
			resp.Continue = storageKey(req.Resource, resp.Items[len(resp.Items)-1].GetObjectMeta().Namespace, resp.Items[len(resp.Items)-1].GetObjectMeta().Name)
			break
		}
		resp.Items = append(resp.Items, obj.DeepCopyObject())
	}
	resp.ResourceVersion = strconv.FormatInt(s.b.Rev, 10)
}

func (s *Server) startWatch(req *apiwire.Request, from sim.HostID) {
	sel, err := model.ParseSelector(req.LabelSelector)
	if err != nil {
		sel = model.Everything()
	}
	w := &watch{caller: from, port: req.WatchPort, id: req.WatchID, resource: req.Resource,
		namespace: req.Namespace, selector: sel, bookmarks: req.AllowWatchBookmarks}
	b := s.b
	if s.WatchLifetime > 0 {
		s.h.After(s.WatchLifetime, "fakeapi-watch-lifetime", func() { s.closeWatch(w) })
	}
	if req.ResourceVersion == "" || req.ResourceVersion == "0" {
		s.watches = append(s.watches, w)
		for _, k := range sim.SortedKeys(b.Objects) {
			if strings.HasPrefix(k, req.Resource+"/") {
				s.send(w, req.Resource, apiwire.Added, b.Objects[k])
			}
		}
		return
	}
	rv, err := strconv.ParseInt(req.ResourceVersion, 10, 64)
	oldest := b.Rev + 1
	if len(b.Log) > 0 {
		oldest = b.Log[0].Rev
	}
	if err != nil || rv < oldest-1 {
		w.seq++
		st := status(410, apiwire.ReasonGone, "too old resource version")
		s.h.Send(w.caller, w.port, &apiwire.WatchEvent{WatchID: w.id, Seq: w.seq, Type: apiwire.Error, Status: &st, Server: s.h.Name()})
		return
	}
	s.watches = append(s.watches, w)
	for _, e := range b.Log {
		if e.Rev > rv && e.Resource == w.resource {
			s.send(w, e.Resource, e.Type, e.Object)
		}
	}
}

// send sends one event on an object of resource to w if it matches. The
// resource is the one the object was written under (any kind, custom ones
// included), not looked up from its kind.
func (s *Server) send(w *watch, resource string, typ apiwire.EventType, obj model.Object) {
	m := obj.GetObjectMeta()
	if resource != w.resource || (w.namespace != "" && m.Namespace != w.namespace) || !w.selector.Matches(m.Labels) {
		return
	}
	w.seq++
	if s.DropWatchEvents > 0 {
		s.DropWatchEvents--
		return
	}
	s.h.Send(w.caller, w.port, &apiwire.WatchEvent{WatchID: w.id, Seq: w.seq, Type: typ, Object: obj.DeepCopyObject(),
		ResourceVersion: m.ResourceVersion, Server: s.h.Name()})
}

// CloseWatches ends every watch stream of the replica cleanly
// (apiwire.Closed), as the real cacher's terminateAllWatchers does.
func (s *Server) CloseWatches() {
	for _, w := range s.watches {
		w.seq++
		s.h.Send(w.caller, w.port, &apiwire.WatchEvent{WatchID: w.id, Seq: w.seq, Type: apiwire.Closed, Server: s.h.Name()})
	}
	s.watches = nil
}

// closeWatch ends w cleanly, if it is still open.
func (s *Server) closeWatch(w *watch) {
	for i, o := range s.watches {
		if o == w {
			w.seq++
			s.h.Send(w.caller, w.port, &apiwire.WatchEvent{WatchID: w.id, Seq: w.seq, Type: apiwire.Closed, Server: s.h.Name()})
			s.watches = append(s.watches[:i], s.watches[i+1:]...)
			return
		}
	}
}

func (s *Server) bookmarks() {
	for _, w := range s.watches {
		if !w.bookmarks {
			continue
		}
		w.seq++
		s.h.Send(w.caller, w.port, &apiwire.WatchEvent{WatchID: w.id, Seq: w.seq, Type: apiwire.Bookmark,
			ResourceVersion: strconv.FormatInt(s.b.Rev, 10), Server: s.h.Name()})
	}
}

// mergePatch applies a JSON merge patch (RFC 7386) to a copy of obj.
func mergePatch(obj model.Object, patch []byte) (model.Object, error) {
	data, err := model.Encode(obj)
	if err != nil {
		return nil, err
	}
	var doc, p any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	out, err := json.Marshal(merge(doc, p))
	if err != nil {
		return nil, err
	}
	return model.Decode(out)
}

func merge(doc, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	dm, ok := doc.(map[string]any)
	if !ok {
		dm = map[string]any{}
	}
	for _, k := range sim.SortedKeys(pm) {
		if pm[k] == nil {
			delete(dm, k)
		} else {
			dm[k] = merge(dm[k], pm[k])
		}
	}
	return dm
}
