package apiload

import (
	"cmp"
	"strconv"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// DefaultCounterName is the name of the counter Lease.
const DefaultCounterName = "counter"

// CounterConfig configures a counter writer; an operation is an
// increment.
type CounterConfig struct {
	WorkloadConfig
	// Counter names the counter Lease, in Namespace; default "counter".
	Counter string
	// Retry is the conflict backoff; default client.DefaultRetry.
	Retry client.Backoff
	// Custom, when set, makes the counter an object of this custom kind
	// (model.CustomResourceDefinition, which the API servers must serve)
	// instead of a Lease; the value is the same annotation.
	Custom *model.CustomResourceDefinition
}

func (cfg CounterConfig) withDefaults() CounterConfig {
	cfg.WorkloadConfig = cfg.WorkloadConfig.withDefaults()
	cfg.Counter = cmp.Or(cfg.Counter, DefaultCounterName)
	cfg.Retry = conflictRetry(cfg.Retry)
	return cfg
}

// CounterStats counts a counter writer's increments, for tests: Acked
// succeeded, Unknown may or may not have taken effect, Failed certainly did
// not (conflicts after the last retry, refusals).
type CounterStats struct {
	Acked, Unknown, Failed int
}

// counter is one counter writer.
type counter struct {
	h      *sim.Host
	cfg    CounterConfig
	c      *client.Client
	leases *client.ResourceClient
	rng    *sim.Stream
	stats  CounterStats
}

// CounterExposeName is the name under which a counter writer exposes its
// *CounterStats on its host.
const CounterExposeName = "apiload/counter"

// BootCounter returns the Boot function of a counter writer host: it
// increments the counter, one increment at a time, until cfg.Until.
func BootCounter(cfg CounterConfig) func(h *sim.Host) {
	cfg = cfg.withDefaults()
	return func(h *sim.Host) {
		k := &counter{h: h, cfg: cfg, rng: h.Rand("apiload/counter")}
		k.c = cfg.newClient(h, client.Config{})
		k.leases = workloadResource(k.c, cfg.Custom, cfg.Namespace)
		h.Expose(CounterExposeName, &k.stats)
		k.next()
	}
}

// next thinks, then increments.
func (k *counter) next() {
	think(k.h, k.rng, k.cfg.Think, k.cfg.Until, "apiload-counter-think", k.increment)
}

// increment is one retry.RetryOnConflict loop of get, +1, update.
func (k *counter) increment() {
	k.c.RetryOnConflict(k.cfg.Retry, k.attempt, func(err error) {
		switch {
		case err == nil:
			k.stats.Acked++
		case client.IsUnknownOutcome(err):
			k.stats.Unknown++
		default:
			k.stats.Failed++
		}
		k.next()
	})
}

// attempt reads the counter (a quorum read), and writes value+1
// conditional on the resourceVersion read. A missing counter is created
// with value 0 (AlreadyExists means another writer did it); the attempt then
// reports a conflict, so that RetryOnConflict reads again.
func (k *counter) attempt(done func(error)) {
	k.leases.Get(k.cfg.Counter, client.GetOptions{}, func(obj model.Object, err error) {
		if client.IsNotFound(err) {
			k.leases.Create(newObject(k.cfg.Custom, k.cfg.Namespace, k.cfg.Counter, "0"), func(_ model.Object, err error) {
				if err == nil || client.IsAlreadyExists(err) {
					err = errRetryCreated
				}
				done(err)
			})
			return
		}
		if err != nil {
			done(err)
			return
		}
		n, perr := strconv.ParseInt(client.DefaultValueOf(obj), 10, 64)
		if perr != nil {
			n = 0 // not a counter value: start over from 0
		}
		setValue(obj, strconv.FormatInt(n+1, 10))
		k.leases.Update(obj, func(_ model.Object, err error) { done(err) })
	})
}

// errRetryCreated is a Conflict that makes RetryOnConflict read again after
// the counter was created.
var errRetryCreated = client.NewStatusError(conflictStatus, "")
