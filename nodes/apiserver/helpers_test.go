package apiserver

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// world is a test world: 3 etcd members (hosts 0..2), API servers and one
// test client host.
type world struct {
	t       *testing.T
	w       *sim.World
	members []*sim.Host
	servers []*sim.Host
	client  *sim.Host
	rpc     *sim.RPC
	events  []*apiwire.WatchEvent
	admits  []*apitrace.Admit
	nextID  uint64
}

// newWorld builds the world; mod adjusts each API server's config.
func newWorld(t *testing.T, seed uint64, servers int, mod func(*Config)) *world {
	t.Helper()
	return newWorldWith(t, sim.NewWorld(seed), servers, mod)
}

// newWorldWith is newWorld on a world the caller made (and may have set
// up: BUGGIFY switched on).
func newWorldWith(t *testing.T, w *sim.World, servers int, mod func(*Config)) *world {
	t.Helper()
	tw := &world{t: t, w: w}
	var peers []etcd.Peer
	var eps []sim.HostID
	for i := 1; i <= 3; i++ {
		peers = append(peers, etcd.Peer{ID: uint64(i), Host: sim.HostID(i - 1), Name: "etcd-" + strconv.Itoa(i)})
		eps = append(eps, sim.HostID(i-1))
	}
	for _, p := range peers {
		h := tw.w.MustAddHost(sim.HostSpec{Name: p.Name, Role: "etcd", Boot: etcd.Boot(etcd.Config{ID: p.ID, Peers: peers})})
		tw.members = append(tw.members, h)
	}
	for i := 1; i <= servers; i++ {
		cfg := Config{Etcd: eps}
		if mod != nil {
			mod(&cfg)
		}
		h := tw.w.MustAddHost(sim.HostSpec{Name: "apiserver-" + strconv.Itoa(i), Role: "apiserver", Boot: Boot(cfg)})
		tw.servers = append(tw.servers, h)
	}
	tw.client = tw.w.MustAddHost(sim.HostSpec{Name: "client", Role: "client", Boot: func(h *sim.Host) {
		tw.rpc = sim.NewRPC(h, "api-reply")
		for _, port := range []string{"watch", "watch#2"} {
			h.Handle(port, func(m *sim.Message) {
				if ev, ok := m.Payload.(*apiwire.WatchEvent); ok {
					tw.events = append(tw.events, ev)
				}
			})
		}
	}})
	tw.w.Subscribe(func(e *sim.Event) {
		if a, ok := e.Data.(*apitrace.Admit); ok {
			c := *a
			tw.admits = append(tw.admits, &c)
		}
	})
	tw.run(3 * time.Second) // elect a leader, fill the caches
	return tw
}

// run advances virtual time.
func (tw *world) run(d time.Duration) { tw.w.RunFor(d) }

// server returns the i-th API server (0-based) as exposed.
func (tw *world) server(i int) *Server {
	s, _ := tw.servers[i].Exposed(ExposeName).(*Server)
	return s
}

// send issues req to server i and returns a function that runs the world
// until the answer is in and returns it.
func (tw *world) send(i int, req *apiwire.Request) func() *apiwire.Response {
	var resp *apiwire.Response
	done := false
	tw.rpc.Call(tw.servers[i].ID(), apiwire.Port, req, 20*time.Second, func(r any, err error) {
		done = true
		if err == nil {
			resp = r.(*apiwire.Response)
		}
	})
	return func() *apiwire.Response {
		deadline := tw.w.Now().Add(30 * time.Second)
		for !done && tw.w.Now() < deadline && tw.w.Step() {
		}
		require.True(tw.t, done, "no answer to %s %s", req.Verb, req.Name)
		require.NotNil(tw.t, resp, "%s %s timed out", req.Verb, req.Name)
		return resp
	}
}

// do sends req to server i and waits for the answer.
func (tw *world) do(i int, req *apiwire.Request) *apiwire.Response { return tw.send(i, req)() }

// must is do, requiring a 2xx answer.
func (tw *world) must(i int, req *apiwire.Request) *apiwire.Response {
	tw.t.Helper()
	resp := tw.do(i, req)
	require.True(tw.t, resp.Status.OK(), "%s %s: %+v", req.Verb, req.Name, resp.Status)
	return resp
}

// watchID returns a fresh watch ID.
func (tw *world) watchID() uint64 { tw.nextID++; return tw.nextID }

// eventsOf returns the watch events received for id.
func (tw *world) eventsOf(id uint64) []*apiwire.WatchEvent {
	var out []*apiwire.WatchEvent
	for _, e := range tw.events {
		if e.WatchID == id {
			out = append(out, e)
		}
	}
	return out
}

// newPod returns a valid pod.
func newPod(name string) *model.Pod {
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       model.PodSpec{Containers: []model.Container{{Name: "c", Image: "nginx:1"}}},
	}
}

// newNode returns a valid node.
func newNode(name string) *model.Node {
	return &model.Node{ObjectMeta: model.ObjectMeta{Name: name},
		Status: model.NodeStatus{Capacity: model.ResourceListOf("cpu", "4", "memory", "8Gi", "pods", "110")}}
}

// create is an admin create.
func create(obj model.Object) *apiwire.Request {
	return &apiwire.Request{User: "admin", Verb: apiwire.VerbCreate, Resource: model.ResourceOf(obj).Name,
		Namespace: obj.GetObjectMeta().Namespace, Object: obj}
}

// getPod is an admin quorum get of a pod.
func getPod(name string) *apiwire.Request {
	return &apiwire.Request{User: "admin", Verb: apiwire.VerbGet, Resource: "pods", Namespace: "default", Name: name}
}

// update is an update of obj by user.
func update(user string, verb apiwire.Verb, obj model.Object) *apiwire.Request {
	m := obj.GetObjectMeta()
	return &apiwire.Request{User: user, Verb: verb, Resource: model.ResourceOf(obj).Name,
		Namespace: m.Namespace, Name: m.Name, Object: obj}
}

// admitsFor returns the Admit events of verb on key.
func (tw *world) admitsFor(verb, key string) []*apitrace.Admit {
	var out []*apitrace.Admit
	for _, a := range tw.admits {
		if a.Verb == verb && a.Key == key {
			out = append(out, a)
		}
	}
	return out
}
