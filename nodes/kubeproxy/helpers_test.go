package kubeproxy

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// fakeAPI is a minimal API server for kube-proxy's informers: list and
// watch of whatever objects the test puts, by resource (no history: a
// watch sees the changes after it starts), and 404 for anything else. The
// served kinds do not have to be registered with the model.
type fakeAPI struct {
	h       *sim.Host
	rev     int64
	objs    map[string]model.Object // by resource/namespace/name
	watches []*fakeWatch
}

type fakeWatch struct {
	caller   sim.HostID
	port     string
	id, seq  uint64
	resource string
	sel      model.Selector
}

func (f *fakeAPI) boot(h *sim.Host) {
	f.h, f.watches = h, nil
	sim.Serve(h, apiwire.Port, f.serve)
}

func (f *fakeAPI) serve(q *sim.Request) {
	req, ok := q.Body.(*apiwire.Request)
	if !ok {
		return
	}
	resp := &apiwire.Response{Server: f.h.Name(), Status: apiwire.Status{Code: 200}}
	sel, err := model.ParseSelector(req.LabelSelector)
	if err != nil {
		sel = model.Everything()
	}
	switch req.Verb {
	case apiwire.VerbList:
		for _, k := range sim.SortedKeys(f.objs) {
			if obj := f.objs[k]; resourceOf(k) == req.Resource && sel.Matches(obj.GetObjectMeta().Labels) {
				resp.Items = append(resp.Items, obj.DeepCopyObject())
			}
		}
		resp.ResourceVersion = strconv.FormatInt(f.rev, 10)
	case apiwire.VerbWatch:
		f.watches = append(f.watches, &fakeWatch{caller: q.From, port: req.WatchPort, id: req.WatchID, resource: req.Resource, sel: sel})
	case apiwire.VerbCancelWatch:
	default:
		resp.Status = apiwire.Status{Code: 404, Reason: apiwire.ReasonNotFound}
	}
	q.Reply(resp)
}

func resourceOf(key string) string {
	for i := range len(key) {
		if key[i] == '/' {
			return key[:i]
		}
	}
	return key
}

// put stores obj as a new revision and, if notify, sends it to the
// watches (without, only a list will see it).
func (f *fakeAPI) put(resource string, obj model.Object, notify bool) {
	f.rev++
	obj = obj.DeepCopyObject()
	obj.GetObjectMeta().ResourceVersion = strconv.FormatInt(f.rev, 10)
	key := resource + "/" + model.KeyOf(obj).String()
	typ := apiwire.Modified
	if f.objs[key] == nil {
		typ = apiwire.Added
	}
	f.objs[key] = obj
	if notify {
		f.send(resource, typ, obj)
	}
}

func (f *fakeAPI) send(resource string, typ apiwire.EventType, obj model.Object) {
	if !f.h.Up() {
		return
	}
	for _, w := range f.watches {
		if w.resource == resource && w.sel.Matches(obj.GetObjectMeta().Labels) {
			w.seq++
			f.h.Send(w.caller, w.port, &apiwire.WatchEvent{WatchID: w.id, Seq: w.seq, Type: typ, Object: obj.DeepCopyObject(),
				ResourceVersion: obj.GetObjectMeta().ResourceVersion, Server: f.h.Name()})
		}
	}
}

// event is a kube-proxy trace event and when it happened.
type event struct {
	at   sim.Time
	text string // kind and text
}

// env is a test world: the fake API server "api" and kube-proxy on
// "node-1".
type env struct {
	t      *testing.T
	w      *sim.World
	api    *fakeAPI
	node   *sim.Host
	events []event
}

func newEnv(t *testing.T, cfg Config, seed func(api *fakeAPI)) *env {
	w := sim.NewWorld(7)
	e := &env{t: t, w: w, api: &fakeAPI{objs: map[string]model.Object{}}}
	if seed != nil {
		seed(e.api)
	}
	apiHost := w.MustAddHost(sim.HostSpec{Name: "api", Role: "apiserver", Boot: e.api.boot})
	cfg.Servers = []sim.HostID{apiHost.ID()}
	e.node = w.MustAddHost(sim.HostSpec{Name: "node-1", Role: "node", Boot: Boot(cfg), Processes: []string{Process}})
	w.Subscribe(func(ev *sim.Event) {
		switch d := ev.Data.(type) {
		case *proxytrace.Rules, *proxytrace.Flush:
			e.events = append(e.events, event{ev.At, d.TraceKind() + " " + string(d.AppendText(nil))})
		}
	})
	return e
}

func (e *env) run(d time.Duration) { e.w.RunFor(d) }

func (e *env) proxy() *Proxy { return Of(e.node) }

// since returns the events after t.
func (e *env) since(t sim.Time) []event {
	var out []event
	for _, ev := range e.events {
		if ev.at > t {
			out = append(out, ev)
		}
	}
	return out
}

// routed is where node-1 routes web:80 now, as "pod/state" strings; nil
// with ok false when no rule matches.
func (e *env) routed() (pods []string, ok bool) {
	r, ok := e.proxy().Lookup("10.96.0.10", 80, "TCP")
	for _, b := range r.Backends {
		pods = append(pods, b.Pod+"/"+b.State)
	}
	return pods, ok
}

func (e *env) requireRouted(want ...string) {
	e.t.Helper()
	got, ok := e.routed()
	require.True(e.t, ok, "node-1 has rules for web")
	require.Equal(e.t, want, got)
}

func (e *env) inject(f sim.Fault) { e.w.Inject(f) }

// webWorld seeds the Service web and its slice with the ready pod a.
func webWorld(api *fakeAPI) {
	api.put(model.ResourceServicesName, service("web", "10.96.0.10"), false)
	api.put(model.ResourceEndpointSlicesName, slice("web-1", "web", ep("a", "10.1.0.1", "node-1", "rs")), false)
}
