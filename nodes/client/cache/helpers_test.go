package cache_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/internal/fakeapi"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/stretchr/testify/require"
)

// env is a fake cluster with a writer client and an informer host.
type env struct {
	*fakeapi.Cluster
	writer  *client.Client
	inf     *cache.Informer
	log     []string // handler calls
	relists []apitrace.Relist
	events  []apitrace.InformerEvent
}

func newEnv(seed uint64, servers int, cfg cache.InformerConfig) *env {
	return newEnvClient(seed, servers, cfg, client.Config{})
}

// newEnvClient is newEnv with the informer's client configured by ccfg
// (its Servers are the cluster's).
func newEnvClient(seed uint64, servers int, cfg cache.InformerConfig, ccfg client.Config) *env {
	e := &env{Cluster: fakeapi.NewCluster(seed, servers)}
	e.AddHost("writer", func(h *sim.Host) { e.writer = client.New(h, client.Config{Servers: e.Servers}) })
	e.AddHost("informer", func(h *sim.Host) {
		ccfg.Servers = e.Servers
		c := client.New(h, ccfg)
		if cfg.Resource == "" {
			cfg.Resource = "pods"
		}
		e.inf = cache.NewInformer(c, cfg)
		e.inf.AddEventHandler(e)
	})
	e.World.Subscribe(func(ev *sim.Event) {
		switch d := ev.Data.(type) {
		case *apitrace.Relist:
			e.relists = append(e.relists, *d)
		case *apitrace.InformerEvent:
			e.events = append(e.events, *d)
		}
	})
	e.World.RunFor(0)
	return e
}

func (e *env) OnAdd(obj model.Object, initial bool) {
	s := "add " + obj.GetObjectMeta().Name
	if initial {
		s += " (initial)"
	}
	e.log = append(e.log, s)
}

func (e *env) OnUpdate(_, obj model.Object) {
	e.log = append(e.log, "update "+obj.GetObjectMeta().Name)
}

func (e *env) OnDelete(obj any) {
	s := "delete " + cache.ObjectOf(obj).GetObjectMeta().Name
	if _, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		s += " (tombstone)"
	}
	e.log = append(e.log, s)
}

func (e *env) do(fn func()) {
	e.World.After(0, "test", fn)
	e.World.RunFor(time.Second)
}

func pod(name string, labels map[string]string) *model.Pod {
	p := &model.Pod{}
	p.Name, p.Namespace, p.Labels = name, "default", labels
	return p
}

func (e *env) create(name string, labels map[string]string) {
	e.writer.Pods("default").Create(pod(name, labels), func(model.Object, error) {})
}

func (e *env) del(name string) {
	e.writer.Pods("default").Delete(name, client.DeleteOptions{}, func(model.Object, error) {})
}

func (e *env) update(name string) {
	e.writer.Pods("default").Get(name, client.GetOptions{}, func(obj model.Object, err error) {
		if err == nil {
			obj.GetObjectMeta().Annotations = map[string]string{client.ValueAnnotation: "x"}
			e.writer.Pods("default").Update(obj, func(model.Object, error) {})
		}
	})
}

// truth returns the backend's pods as key -> RV.
func (e *env) truth() map[string]string {
	out := map[string]string{}
	for _, k := range sim.SortedKeys(e.Backend.Objects) {
		obj := e.Backend.Objects[k]
		out[cache.MetaNamespaceKeyFunc(obj)] = obj.GetObjectMeta().ResourceVersion
	}
	return out
}

// stored returns the informer's store as key -> RV.
func (e *env) stored() map[string]string {
	out := map[string]string{}
	for _, obj := range e.inf.GetStore().List() {
		out[cache.MetaNamespaceKeyFunc(obj)] = obj.GetObjectMeta().ResourceVersion
	}
	return out
}

func (e *env) requireConverged(t *testing.T) {
	t.Helper()
	require.Equal(t, e.truth(), e.stored())
}
