package conformance

import (
	"fmt"
	"strings"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
)

// simSide drives one fresh simulated world: one etcd member and one client
// host, with the default (fault-free) network.
type simSide struct {
	w      *sim.World
	c      *etcd.Client
	prefix string
	// watches lists the op index of every watch opened, in order; streams
	// holds each one's responses by op index.
	watches []int
	streams map[int][]WatchResp
	// cur and compact track the store's revisions for the generator.
	cur, compact int64
	// mem tracks the members by order of creation.
	mem *simMembers
	// member is the member's host; snap the last snapshot saved.
	member sim.HostID
	snap   *etcd.Snapshot
}

// simOpLimit bounds the virtual time one op may take.
const simOpLimit = 30 * time.Second

// simSettle is how long the world keeps running after an op's answer, so
// that watch responses sent with it arrive.
const simSettle = 50 * time.Millisecond

func newSimSide(seed uint64, prefix string, abl ablation.Set) (*simSide, error) {
	s := &simSide{prefix: prefix, streams: map[int][]WatchResp{}}
	peers := []etcd.Peer{{ID: 1, Host: 0, Name: "etcd-1"}}
	if err := s.boot(sim.NewWorld(seed), "etcd-1", etcd.Boot(etcd.Config{ID: 1, Peers: peers, Ablations: abl})); err != nil {
		return nil, err
	}
	return s, nil
}

// boot starts, on a new world w, a member host called name that boots
// with boot and a client host, and waits until the member leads. The
// member list starts with that member.
func (s *simSide) boot(w *sim.World, name string, boot func(*sim.Host)) error {
	s.w, s.cur, s.compact = w, 1, -1
	m := s.w.MustAddHost(sim.HostSpec{Name: name, Role: "etcd", Boot: boot})
	s.member = m.ID()
	s.w.MustAddHost(sim.HostSpec{Name: "client", Role: "client", Boot: func(h *sim.Host) {
		s.c = etcd.NewClient(h, etcd.ClientConfig{Endpoints: []sim.HostID{m.ID()}})
	}})
	// Wait for the single member to elect itself.
	for i := 0; ; i++ {
		if i == 100 {
			return fmt.Errorf("simulated member elected no leader")
		}
		var st etcd.StatusResult
		var err error
		if derr := s.call(func(done func()) {
			s.c.Status(m.ID(), func(r etcd.StatusResult, e error) { st, err = r, e; done() })
		}); derr != nil {
			return derr
		}
		if err == nil && st.IsLeader {
			s.cur = st.Revision
			s.initMembers(m.ID(), st.Header.MemberID, name)
			return nil
		}
		s.w.RunFor(100 * time.Millisecond)
	}
}

// call starts fn on the world and runs the world until fn calls done.
func (s *simSide) call(fn func(done func())) error {
	finished := false
	s.w.After(0, "conformance-op", func() { fn(func() { finished = true }) })
	end := s.w.Now().Add(simOpLimit)
	for !finished {
		if s.w.Now() >= end {
			return fmt.Errorf("simulated op got no answer within %v of virtual time", simOpLimit)
		}
		s.w.RunFor(time.Millisecond)
	}
	s.w.RunFor(simSettle)
	return nil
}

// run performs op number idx and returns its normalized result. Watch
// responses are kept in streams.
func (s *simSide) run(idx int, op Op) (Result, error) {
	var res Result
	var derr error
	switch op.Kind {
	case KPut:
		if op.PrevKV || op.IgnoreValue {
			res, derr = s.txn(mvcc.TxnRequest{Success: []mvcc.Op{s.mvccOp(op)}}, true)
			break
		}
		derr = s.call(func(done func()) {
			s.c.Put(s.prefix+op.Key, op.Value, func(r etcd.PutResult, err error) {
				res = Result{Err: normErr(err), Rev: r.Revision}
				done()
			})
		})
	case KGet:
		opts := etcd.GetOptions{Rev: op.Rev, Serializable: op.Serializable, Limit: op.Limit}
		if op.End != "" {
			opts.End = s.prefix + op.End
		}
		derr = s.call(func(done func()) {
			s.c.Get(s.prefix+op.Key, opts, func(r etcd.GetResult, err error) {
				res = Result{Err: normErr(err), Rev: r.Revision, KVs: s.kvs(r.KVs), Count: r.Count, More: r.More}
				done()
			})
		})
	case KDelete:
		if op.End != "" || op.PrevKV {
			res, derr = s.txn(mvcc.TxnRequest{Success: []mvcc.Op{s.mvccOp(op)}}, true)
			break
		}
		derr = s.call(func(done func()) {
			s.c.Delete(s.prefix+op.Key, func(r etcd.DeleteResult, err error) {
				res = Result{Err: normErr(err), Rev: r.Revision, Deleted: r.Deleted}
				done()
			})
		})
	case KTxn:
		res, derr = s.txn(s.mvccTxn(op.Txn), false)
	case KCompact:
		derr = s.call(func(done func()) {
			s.c.Compact(op.Rev, func(err error) {
				res = Result{Err: normErr(err)}
				if err == nil {
					s.compact = op.Rev
				}
				done()
			})
		})
	case KWatch:
		req := etcd.WatchRequest{Key: s.prefix + op.Key, StartRev: op.Rev, PrevKV: op.PrevKV}
		if op.End != "" {
			req.End = s.prefix + op.End
		}
		s.watches = append(s.watches, idx)
		derr = s.call(func(done func()) {
			s.c.Watch(req, func(r etcd.WatchResponse) { s.streams[idx] = append(s.streams[idx], s.watchResp(idx, r)) })
			done()
		})
	case KMemberList, KMemberAdd, KMemberPromote, KMemberRemove:
		res, derr = s.runMember(op)
	case KSnapshot:
		res, derr = s.snapshot()
	case KRestore:
		res, derr = s.restore(op)
	default:
		return Result{}, fmt.Errorf("unknown op kind %v", op.Kind)
	}
	if derr != nil {
		return Result{}, derr
	}
	if res.Err == "" && res.Rev > s.cur {
		s.cur = res.Rev
	}
	return res, nil
}

// txn runs a txn; unwrap returns its single op's result as a top-level
// result (for the ops the simulated client only offers through Txn).
func (s *simSide) txn(req mvcc.TxnRequest, unwrap bool) (Result, error) {
	var res Result
	derr := s.call(func(done func()) {
		s.c.Txn(req, func(r etcd.TxnResult, err error) {
			if err != nil {
				res = Result{Err: normErr(err)}
			} else {
				res = Result{Rev: r.Revision, Succeeded: r.Succeeded, Responses: s.opResps(r.Responses)}
				if res.Responses == nil {
					res.Responses = []Result{}
				}
			}
			done()
		})
	})
	if unwrap && derr == nil && res.Err == "" {
		sub := res.Responses[0]
		sub.Rev = res.Rev
		return sub, nil
	}
	return res, derr
}

func (s *simSide) opResps(rs []mvcc.OpResponse) []Result {
	var out []Result
	for _, r := range rs {
		var x Result
		switch r.Type {
		case mvcc.OpRange:
			x = Result{Rev: r.Range.Rev, KVs: s.kvs(r.Range.KVs), Count: r.Range.Count, More: r.Range.More}
		case mvcc.OpPut:
			x = Result{Rev: r.Put.Rev, PrevKV: s.kvp(r.Put.PrevKV)}
		case mvcc.OpDelete:
			x = Result{Rev: r.Delete.Rev, Deleted: r.Delete.Deleted, PrevKVs: s.kvs(r.Delete.PrevKVs)}
		case mvcc.OpTxn:
			x = Result{Rev: r.Txn.Rev, Succeeded: r.Txn.Succeeded, Responses: s.opResps(r.Txn.Responses)}
			if x.Responses == nil {
				x.Responses = []Result{}
			}
		}
		out = append(out, x)
	}
	return out
}

func (s *simSide) mvccTxn(t *Txn) mvcc.TxnRequest {
	var req mvcc.TxnRequest
	for _, c := range t.Cmps {
		mc := mvcc.Compare{Key: []byte(s.prefix + c.Key)}
		if c.End != "" {
			mc.RangeEnd = []byte(s.prefix + c.End)
		}
		switch c.Target {
		case "version":
			mc.Target, mc.Version = mvcc.CompareVersion, c.Num
		case "create":
			mc.Target, mc.CreateRevision = mvcc.CompareCreate, c.Num
		case "mod":
			mc.Target, mc.ModRevision = mvcc.CompareMod, c.Num
		case "value":
			mc.Target, mc.Value = mvcc.CompareValue, []byte(c.Value)
		}
		switch c.Result {
		case "=":
			mc.Result = mvcc.CompareEqual
		case "!=":
			mc.Result = mvcc.CompareNotEqual
		case ">":
			mc.Result = mvcc.CompareGreater
		case "<":
			mc.Result = mvcc.CompareLess
		}
		req.Compares = append(req.Compares, mc)
	}
	for _, o := range t.Then {
		req.Success = append(req.Success, s.mvccOp(o))
	}
	for _, o := range t.Else {
		req.Failure = append(req.Failure, s.mvccOp(o))
	}
	return req
}

func (s *simSide) mvccOp(o Op) mvcc.Op {
	var end []byte
	if o.End != "" {
		end = []byte(s.prefix + o.End)
	}
	key := []byte(s.prefix + o.Key)
	switch o.Kind {
	case KPut:
		return mvcc.OpPutOf(key, []byte(o.Value), mvcc.PutOptions{PrevKV: o.PrevKV, IgnoreValue: o.IgnoreValue})
	case KGet:
		return mvcc.OpRangeOf(key, end, mvcc.RangeOptions{Rev: o.Rev, Limit: o.Limit, KeysOnly: o.KeysOnly, CountOnly: o.CountOnly})
	case KDelete:
		return mvcc.OpDeleteOf(key, end, o.PrevKV)
	case KTxn:
		return mvcc.OpTxnOf(s.mvccTxn(o.Txn))
	}
	panic("conformance: op kind not allowed in a txn: " + o.Kind.String())
}

func (s *simSide) kv(kv mvcc.KeyValue) KV {
	return KV{Key: strings.TrimPrefix(string(kv.Key), s.prefix), Value: string(kv.Value),
		Create: kv.CreateRevision, Mod: kv.ModRevision, Version: kv.Version}
}

func (s *simSide) kvp(kv *mvcc.KeyValue) *KV {
	if kv == nil {
		return nil
	}
	x := s.kv(*kv)
	return &x
}

func (s *simSide) kvs(kvs []mvcc.KeyValue) []KV {
	var out []KV
	for _, kv := range kvs {
		out = append(out, s.kv(kv))
	}
	return out
}

func (s *simSide) watchResp(idx int, r etcd.WatchResponse) WatchResp {
	wr := WatchResp{Watch: idx, Rev: r.Revision, Canceled: r.Canceled, CompactRev: r.CompactRevision}
	if r.Err != nil {
		wr.Canceled = true
		wr.Err = r.Err.Error()
	}
	for _, e := range r.Events {
		ev := Event{Type: "PUT", KV: s.kv(e.Kv), PrevKV: s.kvp(e.PrevKv)}
		if e.Type == mvcc.EventDelete {
			ev.Type = "DELETE"
		}
		wr.Events = append(wr.Events, ev)
	}
	return wr
}
