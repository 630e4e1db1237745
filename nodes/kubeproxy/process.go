package kubeproxy

import (
	"errors"
	"strings"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/proxytrace"
)

// labelSelector is the selector of both informers, as
// pkg/proxy StartInformers builds it: no Service that asks for another
// proxy, no slice of a headless Service.
var labelSelector = strings.Join([]string{"!" + LabelServiceProxyName, "!" + LabelHeadless}, ",")

// syncedStore is an informer as its reflector's store that also tells the
// process when a list was stored: ServiceConfig's and
// EndpointSliceConfig's "synced" handlers.
type syncedStore struct {
	*cache.Informer
	onSynced func()
}

// Replace stores a list, then reports it.
func (s syncedStore) Replace(items []model.Object, rv string) {
	s.Informer.Replace(items, rv)
	s.onSynced()
}

// Start runs the process: its sync loop and its informers.
func (q *process) Start() {
	q.runner = NewRunner(q.cfg.MinSyncPeriod, q.cfg.MaxSyncInterval, BurstSyncs, q.h.Now())
	q.loop = q.newTimer("kube-proxy-sync-loop", q.tryRun)
	q.loop.Reset(q.runner.Next().Sub(q.h.Now()))
	q.run = q.newTimer("kube-proxy-sync", q.tryRun)

	q.services, q.serviceRefl = q.informer(model.ResourceServicesName, &q.servicesSynced,
		changeHandlers(q, q.cache.OnService, q.cache.OnServiceDelete))
	q.slices, q.sliceRefl = q.informer(model.ResourceEndpointSlicesName, &q.slSynced,
		changeHandlers(q, q.cache.OnSlice, q.cache.OnSliceDelete))
	q.serviceRefl.Run()
	q.sliceRefl.Run()
	if q.health != nil {
		q.after(q.cfg.DisconnectTimeout, "kube-proxy-disconnect-check", q.checkServer)
	}
}

// informer makes the informer of resource with handlers h, kept by a
// reflector whose first list sets *synced and syncs: ServiceConfig's and
// EndpointSliceConfig's synced handlers (OnServiceSynced: "Sync
// unconditionally - this is called once per lifetime.").
func (q *process) informer(resource string, synced *bool, h cache.ResourceEventHandler) (*cache.Informer, *cache.Reflector) {
	cfg := cache.InformerConfig{ReflectorConfig: cache.ReflectorConfig{Resource: resource, LabelSelector: labelSelector}}
	inf := cache.NewInformer(q.client, cfg)
	refl := cache.NewReflector(q.client, cfg.ReflectorConfig, syncedStore{Informer: inf, onSynced: func() {
		if !q.stopped && !*synced {
			*synced = true
			q.sync()
		}
	}})
	inf.AddEventHandler(h)
	return inf, refl
}

// changeHandlers feed the objects of type T an informer delivers to the
// cache, with on (a nil old object for an add) and onDelete, and request
// a sync whenever the cache reports that the rules may change, as the
// proxier's change trackers do.
func changeHandlers[T model.Object](q *process, on func(old, cur T) bool, onDelete func(T) bool) cache.ResourceEventHandlerFuncs {
	var none T
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj model.Object) {
			if cur, ok := obj.(T); ok && on(none, cur) {
				q.requestSync()
			}
		},
		UpdateFunc: func(oldObj, newObj model.Object) {
			old, _ := oldObj.(T)
			if cur, ok := newObj.(T); ok && on(old, cur) {
				q.requestSync()
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := cache.ObjectOf(obj).(T); ok && onDelete(o) {
				q.requestSync()
			}
		},
	}
}

// Stop ends the process: every callback it armed does nothing.
func (q *process) Stop() {
	q.stopped = true
	q.serviceRefl.Stop()
	q.sliceRefl.Stop()
	q.loop.Stop()
	q.run.Stop()
}

// newTimer makes a timer whose callback does nothing once q stopped.
func (q *process) newTimer(name string, fn func()) *sim.Timer {
	return q.h.NewTimer(name, func() {
		if !q.stopped {
			fn()
		}
	})
}

func (q *process) after(d time.Duration, name string, fn func()) {
	q.newTimer(name, fn).Reset(d)
}

// requestSync is the runner's Run: a run is tried once the current event
// is handled, however many changes it brought.
func (q *process) requestSync() {
	if !q.run.Armed() {
		q.run.Reset(0)
	}
}

// tryRun is the runner's loop, for a request or its timer: sync if the
// runner allows it, and arm the timer for the next run.
func (q *process) tryRun() {
	now := q.h.Now()
	if q.runner.Try(now) {
		q.sync()
	}
	q.loop.Reset(q.runner.Next().Sub(now))
}

// sync is syncProxyRules: nothing until both informers have listed (a
// new process keeps its predecessor's rules until then), then the table
// gets the rules of the informers' stores.
func (q *process) sync() {
	if !q.servicesSynced || !q.slSynced || q.disconnected {
		return
	}
	for _, ev := range q.p.table.Apply(q.cache.Routes()) {
		q.h.Emit(ev)
	}
}

// checkServer is the kube-proxy-flush-on-disconnect ablation: every
// DisconnectTimeout it asks an API server for its Node; when none answers
// within DisconnectTimeout, it drops every rule and programs none until
// one answers again (any answer, an error status included).
func (q *process) checkServer() {
	q.health.Resource(model.ResourceNodesName, "").Get(q.cfg.Node, client.GetOptions{}, func(_ model.Object, err error) {
		if q.stopped {
			return
		}
		lost := err != nil && (client.IsNoAnswer(err) || errors.Is(err, client.ErrNoServers))
		switch {
		case lost && !q.disconnected:
			q.disconnected = true
			for _, ev := range q.p.table.Flush(proxytrace.FlushDisconnected) {
				q.h.Emit(ev)
			}
		case !lost && q.disconnected:
			q.disconnected = false
			q.requestSync()
		}
		q.after(q.cfg.DisconnectTimeout, "kube-proxy-disconnect-check", q.checkServer)
	})
}
