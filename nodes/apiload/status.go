package apiload

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// DefaultStatusObject is the name of the ReplicaSet the status workload
// writes.
const DefaultStatusObject = "status-rs"

// StatusJunk is what a status writer adds to the spec it sends, and a spec
// writer to the status it sends: a value no counter reaches, which the API
// server must ignore (update keeps the stored status, update-status the
// stored spec).
const StatusJunk = 1_000_000

// StatusWriterConfig configures a writer of the status workload; an
// operation is a write.
type StatusWriterConfig struct {
	WorkloadConfig
	// Object names the ReplicaSet, in Namespace; default
	// DefaultStatusObject.
	Object string
	// Spec makes a spec writer (spec.replicas + 1 with update, as a scaler
	// does); otherwise it is a status writer (status.replicas + 1 with
	// update-status, as a controller reporting status does).
	Spec bool
	// Retry is the conflict backoff; default client.DefaultRetry.
	Retry client.Backoff
}

func (cfg StatusWriterConfig) withDefaults() StatusWriterConfig {
	cfg.WorkloadConfig = cfg.WorkloadConfig.withDefaults()
	cfg.Object = cmp.Or(cfg.Object, DefaultStatusObject)
	cfg.Retry = conflictRetry(cfg.Retry)
	return cfg
}

// StatusValueOf is the status workload's trace value of an object: for a
// ReplicaSet "<spec.replicas>/<status.replicas>", for anything else the
// workload value (client.DefaultValueOf).
func StatusValueOf(obj model.Object) string {
	rs, ok := obj.(*model.ReplicaSet)
	if !ok {
		return client.DefaultValueOf(obj)
	}
	return fmt.Sprintf("%d/%d", model.Deref(rs.Spec.Replicas, 1), rs.Status.Replicas)
}

// ParseStatusValue parses a StatusValueOf value of a ReplicaSet.
func ParseStatusValue(v string) (spec, status int64, ok bool) {
	a, b, found := strings.Cut(v, "/")
	if !found {
		return 0, 0, false
	}
	spec, err1 := strconv.ParseInt(a, 10, 64)
	status, err2 := strconv.ParseInt(b, 10, 64)
	return spec, status, err1 == nil && err2 == nil
}

// statusWriter is one writer of the status workload.
type statusWriter struct {
	h   *sim.Host
	cfg StatusWriterConfig
	c   *client.Client
	rss *client.ResourceClient
	rng *sim.Stream
}

// BootStatusWriter returns the Boot function of a status workload writer:
// one write at a time until cfg.Until, each a RetryOnConflict loop of a
// quorum get, +1 on its counter (spec.replicas or status.replicas) and an
// update (or update-status) conditional on the resourceVersion read. The
// other half of the object it sends is junk (its value + StatusJunk), which
// the API server must not store. The first writer to find the ReplicaSet
// missing creates it with both counters at 0.
func BootStatusWriter(cfg StatusWriterConfig) func(h *sim.Host) {
	cfg = cfg.withDefaults()
	return func(h *sim.Host) {
		k := &statusWriter{h: h, cfg: cfg, rng: h.Rand("apiload/status")}
		k.c = cfg.newClient(h, client.Config{ValueOf: StatusValueOf})
		k.rss = k.c.ReplicaSets(cfg.Namespace)
		k.next()
	}
}

// next thinks, then writes.
func (k *statusWriter) next() {
	think(k.h, k.rng, k.cfg.Think, k.cfg.Until, "apiload-status-think", func() {
		k.c.RetryOnConflict(k.cfg.Retry, k.attempt, func(error) { k.next() })
	})
}

// attempt is one get, +1 and conditional write.
func (k *statusWriter) attempt(done func(error)) {
	k.rss.Get(k.cfg.Object, client.GetOptions{}, func(obj model.Object, err error) {
		if client.IsNotFound(err) {
			k.rss.Create(newStatusObject(k.cfg.Namespace, k.cfg.Object), func(_ model.Object, err error) {
				if err == nil || client.IsAlreadyExists(err) {
					err = errRetryCreated
				}
				done(err)
			})
			return
		}
		rs, ok := obj.(*model.ReplicaSet)
		if err != nil || !ok {
			done(err)
			return
		}
		write := k.rss.UpdateStatus
		if k.cfg.Spec {
			n := model.Deref(rs.Spec.Replicas, 1) + 1
			rs.Spec.Replicas = model.Ptr(n)
			rs.Status.Replicas = n + StatusJunk
			write = k.rss.Update
		} else {
			rs.Status.Replicas++
			rs.Spec.Replicas = model.Ptr(rs.Status.Replicas + StatusJunk)
		}
		write(rs, func(_ model.Object, err error) { done(err) })
	})
}

// newStatusObject is the workload's ReplicaSet: both counters at 0.
func newStatusObject(namespace, name string) *model.ReplicaSet {
	labels := map[string]string{"app": name}
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Namespace: namespace, Name: name},
		Spec: model.ReplicaSetSpec{
			Replicas: model.Ptr[int32](0),
			Selector: &model.LabelSelector{MatchLabels: labels},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: labels},
				Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "app:1"}}},
			},
		},
	}
}
