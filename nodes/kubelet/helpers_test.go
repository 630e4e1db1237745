package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// event is one spoke event of the trace, with its time.
type event struct {
	at   sim.Time
	data sim.Data
}

// recorder keeps the kubelet events of a world's trace.
type recorder struct{ events []event }

func recordEvents(w *sim.World) *recorder {
	r := &recorder{}
	w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *spoketrace.ContainerStart:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		case *spoketrace.ContainerStop:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		case *spoketrace.ContainerKill:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		case *spoketrace.PodReady:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		case *spoketrace.NodeHeartbeat:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		case *spoketrace.ProbeResult:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		case *spoketrace.PodAdmit:
			cp := *d
			r.events = append(r.events, event{e.At, &cp})
		}
	})
	return r
}

func (r *recorder) starts(pod string) (out []*spoketrace.ContainerStart, at []sim.Time) {
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.ContainerStart); ok && d.Pod == pod {
			out, at = append(out, d), append(at, e.at)
		}
	}
	return out, at
}

func (r *recorder) stops(pod string) (out []*spoketrace.ContainerStop, at []sim.Time) {
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.ContainerStop); ok && d.Pod == pod {
			out, at = append(out, d), append(at, e.at)
		}
	}
	return out, at
}

func (r *recorder) kills(pod string) (out []*spoketrace.ContainerKill, at []sim.Time) {
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.ContainerKill); ok && d.Pod == pod {
			out, at = append(out, d), append(at, e.at)
		}
	}
	return out, at
}

func (r *recorder) readiness(pod string) (out []bool) {
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.PodReady); ok && d.Pod == pod {
			out = append(out, d.Ready)
		}
	}
	return out
}

func (r *recorder) heartbeats(node string) (at []sim.Time) {
	for _, e := range r.events {
		if d, ok := e.data.(*spoketrace.NodeHeartbeat); ok && d.Node == node {
			at = append(at, e.at)
		}
	}
	return at
}

// since returns the events after t.
func (r *recorder) since(t sim.Time) *recorder {
	out := &recorder{}
	for _, e := range r.events {
		if e.at > t {
			out.events = append(out.events, e)
		}
	}
	return out
}

// env is a test world: etcd, one API server, one kubelet "node-1".
type env struct {
	*apitest.Cluster
	t    *testing.T
	rec  *recorder
	node *sim.Host
}

func newEnv(t *testing.T, seed uint64, members int, cfg Config) *env {
	c := apitest.New(seed, members, 1, nil)
	e := &env{Cluster: c, t: t, rec: recordEvents(c.W)}
	cfg.Servers = c.Servers
	e.node = c.W.MustAddHost(sim.HostSpec{Name: "node-1", Role: apitest.RoleClient, Boot: Boot(cfg), Processes: []string{Process}})
	c.Settle()
	return e
}

// restartKubelet restarts the kubelet process as a schedule would.
func (e *env) restartKubelet() {
	e.W.Inject(sim.Fault{Kind: sim.FaultRestartProcess, Targets: [][]string{{e.node.Name()}}, Process: Process})
}

func (e *env) kubelet() *Kubelet {
	k, _ := e.node.Exposed("kubelet").(*Kubelet)
	require.NotNil(e.t, k)
	return k
}

// runUntil runs the world in 100 ms steps until cond holds, failing after
// limit of virtual time.
func (e *env) runUntil(limit time.Duration, what string, cond func() bool) {
	e.t.Helper()
	for end := e.W.Now().Add(limit); !cond(); {
		require.Less(e.t, e.W.Now(), end, "timed out waiting for %s", what)
		e.Run(100 * time.Millisecond)
	}
}

// newPod is a one-container pod bound to node-1 with annotations ann.
func newPod(name string, ann map[string]string, mods ...func(*model.Pod)) *model.Pod {
	p := &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", Annotations: ann},
		Spec:       model.PodSpec{NodeName: "node-1", Containers: []model.Container{{Name: "app", Image: "app:1"}}},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func withLiveness(pr model.Probe) func(*model.Pod) {
	return func(p *model.Pod) { p.Spec.Containers[0].LivenessProbe = &pr }
}

func withReadiness(pr model.Probe) func(*model.Pod) {
	return func(p *model.Pod) { p.Spec.Containers[0].ReadinessProbe = &pr }
}

func withGrace(s int64) func(*model.Pod) {
	return func(p *model.Pod) { p.Spec.TerminationGracePeriodSeconds = &s }
}

func withPolicy(rp model.RestartPolicy) func(*model.Pod) {
	return func(p *model.Pod) { p.Spec.RestartPolicy = rp }
}

func (e *env) create(p *model.Pod) *model.Pod {
	e.t.Helper()
	obj, err := e.Create(p)
	require.NoError(e.t, err)
	return obj.(*model.Pod)
}

// getPod reads a pod as admin; nil when it does not exist.
func (e *env) getPod(name string) *model.Pod {
	e.t.Helper()
	obj, err := e.Get(model.ResourcePodsName, "default", name)
	if client.IsNotFound(err) {
		return nil
	}
	require.NoError(e.t, err)
	return obj.(*model.Pod)
}

// deletePod deletes a pod as admin (gracefully) and runs until answered.
func (e *env) deletePod(name string) {
	e.t.Helper()
	done := false
	var err error
	e.Admin().Pods("default").Delete(name, client.DeleteOptions{}, func(_ model.Object, e2 error) { done, err = true, e2 })
	e.runUntil(30*time.Second, "delete answer", func() bool { return done })
	require.NoError(e.t, err)
}

// podReadyInAPI reports whether the API server has the pod Ready.
func (e *env) podReadyInAPI(name string) bool {
	p := e.getPod(name)
	return p != nil && model.IsPodReady(p)
}
