package clientgo

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/ablation"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	kcache "github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// simStatus is the status kubesim's API server answers for f (see
// nodes/apiserver status.go for "too large resource version").
func simStatus(f failure) apiwire.Status {
	switch f {
	case gone:
		return apiwire.Status{Code: 410, Reason: apiwire.ReasonGone, Message: "too old resource version: 5 (10)"}
	case tooLarge:
		return apiwire.Status{Code: 504, Reason: apiwire.ReasonTimeout, Message: "Too large resource version: 20, current: 10"}
	case internal:
		return apiwire.Status{Code: 500, Reason: apiwire.ReasonInternalError, Message: "scripted failure"}
	case tooMany:
		return apiwire.Status{Code: 429, Reason: apiwire.ReasonTooManyRequests, Message: "storage is (re)initializing"}
	case unavailable:
		return apiwire.Status{Code: 503, Reason: apiwire.ReasonServiceUnavailable, Message: "etcd is unavailable"}
	}
	panic("no status for this failure")
}

// nopStore is a ReflectorStore that keeps nothing: the differential looks
// at requests, not at the store.
type nopStore struct{}

func (nopStore) Add(model.Object)               {}
func (nopStore) Update(model.Object)            {}
func (nopStore) Delete(model.Object)            {}
func (nopStore) Replace([]model.Object, string) {}

// scriptedServer is an API server replica that answers the reflector's
// lists and watches from a scenario's steps and records them.
type scriptedServer struct {
	w       *sim.World
	h       *sim.Host
	steps   []step
	next    int
	out     *run
	done    bool
	trigger bool // the next message sent may start a backoff
	// seen holds the requests served: the client retransmits an
	// unanswered request (TCP's retransmission), and a copy is the same
	// request, not a new one, as a real server reads it once.
	seen map[*apiwire.Request]bool
}

func (s *scriptedServer) serve(q *sim.Request) {
	req, ok := q.Body.(*apiwire.Request)
	if !ok || s.done || s.seen[req] {
		return
	}
	if s.seen == nil {
		s.seen = map[*apiwire.Request]bool{}
	}
	s.seen[req] = true
	resp := &apiwire.Response{Server: s.h.Name(), Status: apiwire.Status{Code: 200}}
	if req.Verb != apiwire.VerbList && req.Verb != apiwire.VerbWatch {
		q.Reply(resp) // cancel-watch
		return
	}
	s.out.log = append(s.out.log, string(req.Verb)+" "+req.ResourceVersion)
	if s.next == len(s.steps) {
		s.done = true
		s.w.Stop()
		return
	}
	st := s.steps[s.next]
	s.next++
	if string(req.Verb) != st.verb {
		s.out.log = append(s.out.log, "(the script expected a "+st.verb+")")
		s.done = true
		s.w.Stop()
		return
	}
	switch {
	case st.fail == refused:
		return // no answer: the client's request timeout ends the call
	case st.fail != none:
		resp.Status = simStatus(st.fail)
		s.trigger = true
		q.Reply(resp)
		return
	case st.verb == "list":
		resp.ResourceVersion = st.listRV
		q.Reply(resp)
		return
	}
	q.Reply(resp)
	seq := uint64(0)
	send := func(e *apiwire.WatchEvent) {
		seq++
		e.WatchID, e.Seq, e.Server = req.WatchID, seq, s.h.Name()
		s.h.Send(q.From, req.WatchPort, e)
	}
	for _, e := range st.events {
		p := &model.Pod{}
		p.Namespace, p.Name, p.ResourceVersion = "default", "p", e.rv
		send(&apiwire.WatchEvent{Type: apiwire.EventType(e.typ), Object: p, ResourceVersion: e.rv})
	}
	end := func() {
		s.trigger = true
		if st.end == none {
			send(&apiwire.WatchEvent{Type: apiwire.Closed})
			return
		}
		status := simStatus(st.end)
		send(&apiwire.WatchEvent{Type: apiwire.Error, Status: &status})
	}
	if st.after == 0 {
		end()
		return
	}
	s.h.After(st.after, "script-stream-end", end)
}

// runSim drives kubesim's cache.Reflector through sc in a world of one
// scripted API server and one client host. A backoff is measured on the
// client host's virtual clock: from the moment the reflector learnt of the
// failure (the delivery of the server's failing answer or stream end, or
// the firing of the request's timeout for a request that got no answer)
// to the firing of its "reflector-backoff" timer.
func runSim(t *testing.T, sc scenario, ablations ablation.Set) run {
	t.Helper()
	var out run
	w := sim.NewWorld(1)
	srv := &scriptedServer{w: w, steps: sc.steps, out: &out}
	api := w.MustAddHost(sim.HostSpec{Name: "api", Role: "apiserver", Boot: func(h *sim.Host) {
		srv.h = h
		sim.Serve(h, apiwire.Port, srv.serve)
	}})
	var refl *kcache.Reflector
	cl := w.MustAddHost(sim.HostSpec{Name: "informer", Role: "client", Boot: func(h *sim.Host) {
		// A request timeout stands in for connection refused: the
		// scripted server answers a refused request with nothing, and
		// the call ends when the timeout fires (rpc-timeout, below).
		// Quiet streams live on: the server answers the health check's
		// pings.
		c := client.New(h, client.Config{Servers: []sim.HostID{api.ID()}, Timeout: 10 * time.Second})
		refl = kcache.NewReflector(c, kcache.ReflectorConfig{Name: "differential", Resource: "pods", Ablations: ablations}, nopStore{})
	}})
	var triggerMsg uint64
	var triggerAt sim.Time
	w.Subscribe(func(e *sim.Event) {
		switch {
		case e.Kind == sim.KindSend && e.Host == api.ID() && srv.trigger:
			srv.trigger = false
			triggerMsg = e.ID
		case e.Kind == sim.KindDeliver && e.Host == cl.ID() && e.ID == triggerMsg:
			triggerAt = e.At
		case e.Kind == sim.KindTimer && e.Host == cl.ID() && e.Name == "rpc-timeout":
			triggerAt = e.At
		case e.Kind == sim.KindTimer && e.Host == cl.ID() && e.Name == "reflector-backoff":
			out.log = append(out.log, "backoff")
			out.backoffs = append(out.backoffs, time.Duration(e.At-triggerAt))
		}
	})
	w.RunFor(0)
	w.After(0, "start", refl.Run)
	w.RunFor(time.Hour)
	if !srv.done {
		t.Fatalf("kubesim's reflector made no further request within an hour of virtual time; record so far: %q", out.log)
	}
	return out
}
