package apiload

import (
	"cmp"
	"strconv"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// Defaults of CRUDConfig.
const (
	DefaultCRUDKeys   = 5
	DefaultCRUDPrefix = "obj-"
)

// CRUDConfig configures a CRUD client.
type CRUDConfig struct {
	WorkloadConfig
	// Keys is the number of Leases, named Prefix+"0" to Prefix+"<Keys-1>";
	// default 5 and "obj-".
	Keys   int
	Prefix string
	// Custom, when set, makes the keys objects of this custom kind
	// (model.CustomResourceDefinition, which the API servers must serve)
	// instead of Leases; the values are the same annotation.
	Custom *model.CustomResourceDefinition
}

func (cfg CRUDConfig) withDefaults() CRUDConfig {
	cfg.WorkloadConfig = cfg.WorkloadConfig.withDefaults()
	if cfg.Keys <= 0 {
		cfg.Keys = DefaultCRUDKeys
	}
	cfg.Prefix = cmp.Or(cfg.Prefix, DefaultCRUDPrefix)
	return cfg
}

// crud runs one operation at a time on a few Leases. A key it knows nothing
// about is read first (a quorum get); otherwise 40% of operations are
// quorum gets and the rest writes chosen from what it last learned of the
// key: a create when it saw the key absent, else an update conditional on
// the resourceVersion it read (70%) or a delete (30%, conditional on that
// resourceVersion half the time). Any other outcome than success or
// NotFound (a 409, an unknown outcome) forgets the key, so that it is read
// again.
type crud struct {
	h      *sim.Host
	cfg    CRUDConfig
	name   string
	leases *client.ResourceClient
	rng    *sim.Stream
	op     uint64
	// last is the object last read or written per key, nil when it was
	// last seen missing. Looked up, never ranged.
	last map[string]model.Object
}

// BootCRUD returns the Boot function of a CRUD client host.
func BootCRUD(cfg CRUDConfig) func(h *sim.Host) {
	cfg = cfg.withDefaults()
	return func(h *sim.Host) {
		k := &crud{h: h, cfg: cfg, name: defaults.HostName(cfg.Name, h), rng: h.Rand("apiload/crud"), last: map[string]model.Object{}}
		k.leases = workloadResource(cfg.newClient(h, client.Config{}), cfg.Custom, cfg.Namespace)
		k.next()
	}
}

// next thinks, then runs one operation.
func (k *crud) next() {
	think(k.h, k.rng, k.cfg.Think, k.cfg.Until, "apiload-crud-think", k.step)
}

// value is a unique value: "<client>-<op>".
func (k *crud) value() string {
	k.op++
	return k.name + "-" + strconv.FormatUint(k.op, 10)
}

// step picks and starts one operation.
func (k *crud) step() {
	name := k.cfg.Prefix + itoa(k.rng.IntN(k.cfg.Keys))
	obj, known := k.last[name]
	r := k.rng.IntN(100)
	switch {
	case !known || r < 40:
		k.leases.Get(name, client.GetOptions{}, func(got model.Object, err error) {
			k.learn(name, got, err)
			k.next()
		})
	case obj == nil:
		k.leases.Create(newObject(k.cfg.Custom, k.cfg.Namespace, name, k.value()), func(got model.Object, err error) {
			k.learn(name, got, err)
			k.next()
		})
	case r < 82:
		up := obj.DeepCopyObject()
		setValue(up, k.value())
		k.leases.Update(up, func(got model.Object, err error) {
			k.learn(name, got, err)
			k.next()
		})
	default:
		opts := client.DeleteOptions{}
		if k.rng.IntN(2) == 0 {
			opts.Preconditions = &apiwire.Preconditions{ResourceVersion: obj.GetObjectMeta().ResourceVersion}
		}
		k.leases.Delete(name, opts, func(_ model.Object, err error) {
			if err == nil {
				k.last[name] = nil
			} else {
				k.learn(name, nil, err)
			}
			k.next()
		})
	}
}

// learn updates what the client knows of name from a call's outcome: the
// object returned, absent on NotFound, forgotten when the outcome is
// unknown or a write was refused for a stale view (409).
func (k *crud) learn(name string, obj model.Object, err error) {
	switch {
	case err == nil && obj != nil:
		k.last[name] = obj
	case client.IsNotFound(err):
		k.last[name] = nil
	default:
		delete(k.last, name)
	}
}
