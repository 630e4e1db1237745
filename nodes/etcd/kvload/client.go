package kvload

import (
	"slices"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
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
	// Ops, when set, names the kinds of operation the client runs (of
	// OpKinds), each as often relative to the others as in the full mix;
	// default (or none known) every kind. A swarm run switches some off.
	Ops []string
}

// known is what a client last learned about a key: its value and mod
// revision, or that it was absent. Only linearizable answers teach it, so
// that every compare the client makes rests on an answer the
// linearizability check knows.
type known struct {
	value  string
	mod    int64
	absent bool
}

// The operation mix, in percent (after etcd's robustness traffic: gets,
// ranges and stale reads, puts, deletes, compare-and-sets, multi-op txns).
var opMix = []opShare{
	{25, chooseGet, "get"}, {5, chooseRange, "range"}, {8, chooseHistorical, "historical"},
	{25, choosePut, "put"}, {12, chooseCAS, "cas"}, {8, chooseDelete, "delete"}, {17, chooseTxn, "txn"},
}

// opShare is a kind of operation's share of the mix, in percent, and its
// name (OpKinds).
type opShare struct {
	pct  int
	kind opChoice
	name string
}

// OpKinds names the kinds of operation a client runs, in the order of the
// mix: linearizable gets of a key, range reads of a group, historical
// reads, puts, compare-and-swaps, deletes and multi-op txns.
func OpKinds() []string {
	var out []string
	for _, m := range opMix {
		out = append(out, m.name)
	}
	return out
}

// mixOf is the part of opMix that ops names (all of it when ops names
// none), and the sum of its shares.
func mixOf(ops []string) (mix []opShare, total int) {
	for _, m := range opMix {
		if slices.Contains(ops, m.name) {
			mix = append(mix, m)
			total += m.pct
		}
	}
	if len(mix) == 0 {
		return opMix, 100
	}
	return mix, total
}

type opChoice uint8

const (
	chooseGet opChoice = iota
	chooseRange
	chooseHistorical
	choosePut
	chooseCAS
	chooseDelete
	chooseTxn
)

// kvClient runs one operation at a time (opMix): linearizable gets of a
// key and range reads of a group of keys, historical reads at a revision
// it saw, puts of unique values, deletes, compare-and-swaps on a value,
// and multi-op txns within a group of keys.
type kvClient struct {
	h     *sim.Host
	cfg   ClientConfig
	name  string
	c     *etcd.Client
	rand  *sim.Stream
	mix   []opShare
	rolls int // the sum of mix's shares
	ks    keyspace
	op    uint64
	known map[string]known
	seen  revisions
}

// BootClient returns the Boot function of a KV client host.
func BootClient(cfg ClientConfig) func(h *sim.Host) {
	defaults.Positive(&cfg.Keys, DefaultKeys)
	defaults.Positive(&cfg.Think, DefaultThink)
	return func(h *sim.Host) {
		k := &kvClient{
			h:     h,
			cfg:   cfg,
			name:  traceName(h, cfg.Name),
			rand:  h.Rand("kv-ops"),
			ks:    newKeyspace(cfg.Keys),
			known: make(map[string]known),
		}
		k.mix, k.rolls = mixOf(cfg.Ops)
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
	ki := k.rand.IntN(k.cfg.Keys)
	key := k.ks.keys[ki]
	call := &etcdtrace.Call{Client: k.name, Op: k.op, Key: key}
	r := k.rand.IntN(k.rolls)
	choice := k.mix[len(k.mix)-1].kind
	for _, m := range k.mix {
		if r < m.pct {
			choice = m.kind
			break
		}
		r -= m.pct
	}
	switch choice {
	case chooseGet:
		k.startGet(call, false)
	case chooseRange:
		call.Key, call.End = k.ks.groupRange(k.ks.group[ki])
		k.startGet(call, false)
	case chooseHistorical:
		if k.rand.IntN(4) == 0 {
			call.Key, call.End = k.ks.groupRange(k.ks.group[ki])
		}
		call.Rev = k.seen.pick(k.rand)
		k.startGet(call, true)
	case choosePut:
		call.Kind, call.Value = etcdtrace.OpPut, k.uniqueValue()
		k.h.Emit(call)
		k.c.Put(key, call.Value, func(res etcd.PutResult, err error) {
			if err == nil {
				k.known[key] = known{value: call.Value, mod: res.Revision}
			}
			k.finish(k.newReturn(err, res.Header))
		})
	case chooseCAS:
		k.startCAS(call)
	case chooseDelete:
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
	default:
		k.startTxn(call, k.ks.group[ki])
	}
}

// startGet reads call.Key (or the range [call.Key, call.End)) at
// call.Rev, linearizably. A historical read teaches the client nothing
// about the present.
func (k *kvClient) startGet(call *etcdtrace.Call, historical bool) {
	call.Kind = etcdtrace.OpGet
	k.h.Emit(call)
	k.c.Get(call.Key, etcd.GetOptions{End: call.End, Rev: call.Rev}, func(res etcd.GetResult, err error) {
		ret := k.newReturn(err, res.Header)
		if err == nil {
			if call.End != "" {
				ret.KVs = readKVs(ret.KVs, 0, res.KVs)
			} else if len(res.KVs) > 0 {
				kv := res.KVs[0]
				ret.Found, ret.Value, ret.Version = true, string(kv.Value), kv.Version
				ret.ModRev, ret.CreateRev = kv.ModRevision, kv.CreateRevision
			}
			if !historical {
				k.learn(call.Key, call.End, res.KVs)
			}
		}
		k.finish(ret)
	})
}

// learn records what a linearizable read of [key, end) saw.
func (k *kvClient) learn(key, end string, kvs []mvcc.KeyValue) {
	for _, kk := range k.ks.keys {
		if kk == key || end != "" && kk > key && kk < end {
			k.known[kk] = known{absent: true}
		}
	}
	for _, kv := range kvs {
		k.known[string(kv.Key)] = known{value: string(kv.Value), mod: kv.ModRevision}
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
				k.known[key] = known{value: call.Value, mod: res.Revision}
			}
		}
		k.finish(ret)
	})
}

// uniqueValue is "<client>-<op>", or "<client>-<op>.<n>" for a txn's n-th
// put.
func (k *kvClient) uniqueValue() string {
	return k.name + "-" + strconv.FormatUint(k.op, 10)
}

// newReturn starts the Return of the current op: ok on an answer, fail when
// the error proves the op did not happen, unknown otherwise. Every answer's
// header revision joins the revisions historical reads pick from.
func (k *kvClient) newReturn(err error, hdr etcd.Header) *etcdtrace.Return {
	ret := &etcdtrace.Return{Client: k.name, Op: k.op}
	switch {
	case err == nil:
		ret.Outcome, ret.Rev, ret.Member = etcdtrace.OutcomeOK, hdr.Revision, hdr.Member
		k.seen.add(hdr.Revision, k.h.Now())
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

// readKVs appends the keys a read returned, for operation op.
func readKVs(out []etcdtrace.ReadKV, op int, kvs []mvcc.KeyValue) []etcdtrace.ReadKV {
	for _, kv := range kvs {
		out = append(out, etcdtrace.ReadKV{Op: op, Key: string(kv.Key), Value: string(kv.Value),
			ModRev: kv.ModRevision, CreateRev: kv.CreateRevision, Version: kv.Version})
	}
	return out
}
