package kvload

import (
	"strconv"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// Defaults of ClientConfig.
const (
	DefaultKeys  = 10
	DefaultThink = 20 * time.Millisecond
)

// ClientConfig configures a KV client process.
type ClientConfig struct {
	// Name is the client's name in the trace; empty means the host's name.
	Name string
	// Endpoints are the etcd members' hosts.
	Endpoints []sim.HostID
	// Keys is the number of keys, "k0" to "k<Keys-1>". Default 10.
	Keys int
	// Think is the mean pause between two operations (exponentially
	// distributed). Default 20 ms.
	Think time.Duration
	// RequestTimeout bounds each operation; default the etcd client's 5 s.
	RequestTimeout time.Duration
	// Until, when set, is the virtual time after which the client starts no
	// new operation, so that a scenario can let the cluster go quiet before
	// comparing members.
	Until time.Duration
}

// known is what a client last learned about a key's value.
type known struct {
	value  string
	absent bool
}

// kvClient runs one operation at a time: 40% get (linearizable), 30% put of
// a unique value, 20% compare-and-swap, 10% delete.
type kvClient struct {
	h     *sim.Host
	cfg   ClientConfig
	name  string
	c     *etcd.Client
	rand  *sim.Stream
	op    uint64
	known map[string]known
}

// BootClient returns the Boot function of a KV client host.
func BootClient(cfg ClientConfig) func(h *sim.Host) {
	if cfg.Keys <= 0 {
		cfg.Keys = DefaultKeys
	}
	if cfg.Think <= 0 {
		cfg.Think = DefaultThink
	}
	return func(h *sim.Host) {
		k := &kvClient{
			h:     h,
			cfg:   cfg,
			name:  traceName(h, cfg.Name),
			rand:  h.Rand("kv-ops"),
			known: make(map[string]known),
		}
		k.c = etcd.NewClient(h, etcd.ClientConfig{Name: k.name, Endpoints: cfg.Endpoints, RequestTimeout: cfg.RequestTimeout})
		k.scheduleNext()
	}
}

// scheduleNext thinks, then runs the next operation.
func (k *kvClient) scheduleNext() {
	d := time.Duration(k.rand.ExpFloat64() * float64(k.cfg.Think))
	if k.cfg.Until > 0 && k.h.Now().Add(d) >= sim.Time(k.cfg.Until) {
		return
	}
	k.h.After(d, "kv-think", k.stepOp)
}

// stepOp picks and starts one operation.
func (k *kvClient) stepOp() {
	k.op++
	key := "k" + strconv.Itoa(k.rand.IntN(k.cfg.Keys))
	call := &etcdtrace.Call{Client: k.name, Op: k.op, Key: key}
	switch r := k.rand.IntN(100); {
	case r < 40:
		call.Kind = etcdtrace.OpGet
		k.h.Emit(call)
		k.c.Get(key, etcd.GetOptions{}, func(res etcd.GetResult, err error) {
			ret := k.newReturn(err, res.Header)
			if err == nil {
				if len(res.KVs) > 0 {
					ret.Found, ret.Value, ret.Version = true, string(res.KVs[0].Value), res.KVs[0].Version
					k.known[key] = known{value: ret.Value}
				} else {
					k.known[key] = known{absent: true}
				}
			}
			k.finish(ret)
		})
	case r < 70:
		call.Kind, call.Value = etcdtrace.OpPut, k.uniqueValue()
		k.h.Emit(call)
		k.c.Put(key, call.Value, func(res etcd.PutResult, err error) {
			if err == nil {
				k.known[key] = known{value: call.Value}
			}
			k.finish(k.newReturn(err, res.Header))
		})
	case r < 90:
		k.startCAS(call)
	default:
		call.Kind = etcdtrace.OpDelete
		k.h.Emit(call)
		k.c.Delete(key, func(res etcd.DeleteResult, err error) {
			ret := k.newReturn(err, res.Header)
			if err == nil {
				ret.Succeeded = res.Deleted > 0
				k.known[key] = known{absent: true}
			}
			k.finish(ret)
		})
	}
}

// startCAS swaps in a unique value if the key still holds what this client
// last saw (or is still absent, if it saw it absent or never saw it).
func (k *kvClient) startCAS(call *etcdtrace.Call) {
	key := call.Key
	call.Kind, call.Value = etcdtrace.OpCAS, k.uniqueValue()
	kn, ok := k.known[key]
	cmp := mvcc.Compare{Key: []byte(key), Result: mvcc.CompareEqual}
	if !ok || kn.absent {
		call.ExpectAbsent = true
		cmp.Target = mvcc.CompareVersion
	} else {
		call.Expect = kn.value
		cmp.Target, cmp.Value = mvcc.CompareValue, []byte(kn.value)
	}
	k.h.Emit(call)
	txn := mvcc.TxnRequest{
		Compares: []mvcc.Compare{cmp},
		Success:  []mvcc.Op{mvcc.OpPutOf([]byte(key), []byte(call.Value), mvcc.PutOptions{})},
	}
	k.c.Txn(txn, func(res etcd.TxnResult, err error) {
		ret := k.newReturn(err, res.Header)
		if err == nil {
			ret.Succeeded = res.Succeeded
			if res.Succeeded {
				k.known[key] = known{value: call.Value}
			}
		}
		k.finish(ret)
	})
}

// uniqueValue is "<client>-<op>".
func (k *kvClient) uniqueValue() string {
	return k.name + "-" + strconv.FormatUint(k.op, 10)
}

// newReturn starts the Return of the current op: ok on an answer, fail when
// the error proves the op did not happen, unknown otherwise.
func (k *kvClient) newReturn(err error, hdr etcd.Header) *etcdtrace.Return {
	ret := &etcdtrace.Return{Client: k.name, Op: k.op}
	switch {
	case err == nil:
		ret.Outcome, ret.Rev, ret.Member = etcdtrace.OutcomeOK, hdr.Revision, hdr.Member
	case etcd.DefinitelyNotApplied(err):
		ret.Outcome, ret.Err = etcdtrace.OutcomeFail, err.Error()
	default:
		ret.Outcome, ret.Err = etcdtrace.OutcomeUnknown, err.Error()
	}
	return ret
}

// finish emits the Return and schedules the next op.
func (k *kvClient) finish(ret *etcdtrace.Return) {
	k.h.Emit(ret)
	k.scheduleNext()
}
