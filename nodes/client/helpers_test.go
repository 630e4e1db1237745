package client_test

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/internal/fakeapi"
	"github.com/kubesim/kubesim/sim"
)

// env is a fake cluster with one client host.
type env struct {
	*fakeapi.Cluster
	host *sim.Host
	c    *client.Client
}

func newEnv(seed uint64, servers int, cfg client.Config) *env {
	e := &env{Cluster: fakeapi.NewCluster(seed, servers)}
	cfg.Servers = e.Servers
	e.host = e.AddHost("ctl", func(h *sim.Host) { e.c = client.New(h, cfg) })
	e.World.RunFor(0)
	return e
}

// at runs fn at virtual time d from now on the client host's behalf.
func (e *env) at(d time.Duration, fn func()) { e.World.After(d, "test", fn) }

func pod(name string, labels map[string]string, value string) *model.Pod {
	p := &model.Pod{}
	p.Name, p.Namespace, p.Labels = name, "default", labels
	if value != "" {
		p.Annotations = map[string]string{client.ValueAnnotation: value}
	}
	return p
}

// result records one callback.
type result struct {
	obj  model.Object
	err  error
	at   sim.Time
	done bool
}

func (e *env) rec(r *result) client.ObjectCallback {
	return func(obj model.Object, err error) {
		r.obj, r.err, r.at, r.done = obj, err, e.World.Now(), true
	}
}
