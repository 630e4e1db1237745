package apiserver

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// ExposeName is the name under which a replica exposes itself
// (sim.Host.Expose) for scenario-level inspection: a *Server.
const ExposeName = "apiserver"

// Server is one API server replica on its host. Everything in it is
// volatile: a crash loses it, and Boot builds a fresh one with empty caches.
type Server struct {
	h    *sim.Host
	cfg  Config
	etcd *etcd.Client // serves the requests
	// cacheEtcd feeds the watch caches. It is one client for all of them:
	// an etcd member identifies a watch by client host and stream number,
	// which one client keeps unique.
	cacheEtcd *etcd.Client
	uids      *sim.Stream
	caches    map[string]*cache // by resource name; looked up, never ranged
	order     []*cache          // the caches in registry order
	// seen remembers the requests received, and their answers, to serve
	// each once however often it arrives (conn.go): by identity (looked
	// up, never ranged); answered holds the answered ones in the order
	// they were answered, to forget them.
	seen     map[*apiwire.Request]*seenRequest
	answered []*seenRequest
	// closing are the streams whose final frame is being retransmitted
	// (closing.go).
	closing []*closingStream
}

// Boot returns the Boot function of an API server host.
func Boot(cfg Config) func(h *sim.Host) {
	return func(h *sim.Host) {
		s := &Server{h: h, cfg: cfg.withDefaults(h), caches: make(map[string]*cache), seen: make(map[*apiwire.Request]*seenRequest)}
		s.uids = h.Rand("apiserver/uid")
		// --etcd-servers: the host's file when the operator edited it
		// (SetEtcdServers), else the endpoints the replica was built with.
		s.cfg.Etcd = etcdServers(h, s.cfg.Etcd)
		s.etcd = etcd.NewClient(h, etcd.ClientConfig{Name: s.cfg.Name, Endpoints: s.cfg.Etcd,
			RequestTimeout: s.cfg.EtcdRequestTimeout, ReplyPort: "etcd-reply"})
		s.cacheEtcd = etcd.NewClient(h, etcd.ClientConfig{Name: s.cfg.Name + "/cache", Endpoints: s.cfg.Etcd,
			RequestTimeout: s.cfg.EtcdRequestTimeout, ReplyPort: "etcd-cache"})
		for _, res := range s.cfg.Resources.Resources() {
			c := newCache(s, res)
			s.caches[res.Name] = c
			s.order = append(s.order, c)
		}
		sim.Serve(h, apiwire.Port, s.serve)
		h.Expose(ExposeName, s)
		for _, c := range s.order {
			c.start()
		}
		s.startTimers()
		s.startCompactor()
	}
}

// Name returns the replica's name.
func (s *Server) Name() string { return s.cfg.Name }

// CacheRevision returns the revision the watch cache of resource has seen,
// or 0 (for tests and scenario inspection).
func (s *Server) CacheRevision(resource string) int64 {
	if c, ok := s.caches[resource]; ok {
		return c.rev
	}
	return 0
}

// call is one request in progress.
type call struct {
	s   *Server
	q   *sim.Request
	req *apiwire.Request
	res resourceInfo
}

// reply answers the call.
func (c *call) reply(resp *apiwire.Response) {
	resp.Server = c.s.cfg.Name
	c.s.answer(c.req, resp)
	c.q.Reply(resp)
}

// fail answers the call with a failed status.
func (c *call) fail(st *apiwire.Status) { c.reply(&apiwire.Response{Status: *st}) }

// ok answers the call with an object.
func (c *call) ok(obj model.Object) {
	c.reply(&apiwire.Response{Status: statusOK, Object: obj})
}

// serve dispatches one request.
func (s *Server) serve(q *sim.Request) {
	var req *apiwire.Request
	switch b := q.Body.(type) {
	case *apiwire.Request:
		if s.duplicate(b, q) {
			return
		}
		req = b
	case apiwire.Request:
		req = &b
	default:
		q.Reply(&apiwire.Response{Server: s.cfg.Name, Status: *badRequest("not an API request")})
		return
	}
	c := &call{s: s, q: q, req: req}
	if req.User == "" {
		c.fail(errStatus(401, apiwire.ReasonUnauthorized, "Unauthorized"))
		return
	}
	if req.Verb == apiwire.VerbCancelWatch {
		s.cancelWatch(c)
		return
	}
	if d, ok := s.h.BuggifyDelay(sim.BuggifyEarly429); ok {
		// API Priority and Fairness, after authentication and before
		// authorization, refuses what it cannot seat (buggify.go).
		c.fail(early429(d))
		return
	}
	res, ok := s.cfg.Resources.ForName(req.Resource)
	if !ok {
		c.fail(errStatus(404, apiwire.ReasonNotFound, "the server could not find the requested resource (%s %s)", req.Verb, req.Resource))
		return
	}
	c.res = res
	if st := s.authorize(req, res); st != nil {
		c.fail(st)
		return
	}
	switch req.Verb {
	case apiwire.VerbGet:
		s.get(c)
	case apiwire.VerbList:
		s.list(c)
	case apiwire.VerbWatch:
		s.watch(c)
	case apiwire.VerbCreate:
		s.create(c)
	case apiwire.VerbUpdate, apiwire.VerbUpdateStatus:
		s.update(c)
	case apiwire.VerbPatch:
		s.patch(c)
	case apiwire.VerbDelete:
		s.delete(c)
	case apiwire.VerbBind:
		s.bind(c)
	default:
		c.fail(errStatus(405, apiwire.ReasonBadRequest, "the server does not allow this method on the requested resource (%s %s)", req.Verb, req.Resource))
	}
}

// startTimers arms the replica's periodic work: the caches' etcd watch
// checks and window trimming, and bookmarks.
func (s *Server) startTimers() {
	var tick, bookmark *sim.Timer
	tick = s.h.NewTimer("apiserver-cache-tick", func() {
		tick.Reset(s.cfg.CacheProgressInterval)
		for _, c := range s.order {
			c.handleTick()
		}
	})
	bookmark = s.h.NewTimer("apiserver-bookmark", func() {
		bookmark.Reset(bookmarkTick)
		for _, c := range s.order {
			c.sendBookmarks()
		}
	})
	tick.Reset(s.cfg.CacheProgressInterval)
	bookmark.Reset(bookmarkTick)
}
