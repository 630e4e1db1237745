package checks

import (
	"sort"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// step is one trace event of a hand-built test trace: its virtual time in
// milliseconds and its payload.
type step struct {
	ms   int64
	data sim.Data
}

// at builds a step at ms milliseconds.
func at(ms int64, d sim.Data) step { return step{ms, d} }

// feed turns steps into node events, numbered in order, feeds them to c and
// returns its verdict.
func feed(c Check, steps ...step) Result {
	for i, s := range steps {
		c.Observe(&sim.Event{Seq: uint64(i), At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Data: s.data})
	}
	return c.Finish()
}

// feedEvents feeds prepared events to c and returns its verdict.
func feedEvents(c Check, evs []sim.Event) Result {
	for i := range evs {
		c.Observe(&evs[i])
	}
	return c.Finish()
}

// histOp is one client operation of a hand-built KV history, as also
// stored in testdata/*.json. Times are in milliseconds; Return < 0 means
// the call never returned.
type histOp struct {
	Client       string            `json:"client"`
	Kind         etcdtrace.OpKind  `json:"kind"`
	Key          string            `json:"key"`
	Value        string            `json:"value,omitempty"`
	Expect       string            `json:"expect,omitempty"`
	ExpectAbsent bool              `json:"expect_absent,omitempty"`
	Call         int64             `json:"call"`
	Return       int64             `json:"return"`
	Outcome      etcdtrace.Outcome `json:"outcome,omitempty"`
	Found        bool              `json:"found,omitempty"`
	Got          string            `json:"got,omitempty"`
	Succeeded    bool              `json:"succeeded,omitempty"`
	// Ranges, txns and revisions (genGroupHistory).
	End      string              `json:"end,omitempty"`
	Compares []etcdtrace.Compare `json:"compares,omitempty"`
	Ops      []etcdtrace.TxnOp   `json:"ops,omitempty"`
	Version  int64               `json:"version,omitempty"`
	ModRev   int64               `json:"mod_rev,omitempty"`
	Create   int64               `json:"create_rev,omitempty"`
	Rev      int64               `json:"rev,omitempty"`
	KVs      []etcdtrace.ReadKV  `json:"kvs,omitempty"`
}

// callOrReturn is the call (or, with isRet, the return) of operation i of
// a hand-built history, at time t.
type callOrReturn struct {
	t     int64
	isRet bool
	i     int
}

// inTimeOrder lists the calls and returns of n operations in time order, a
// call before a return at the same instant; times gives operation i's call
// and return times, a return < 0 meaning it never returned.
func inTimeOrder(n int, times func(i int) (call, ret int64)) []callOrReturn {
	var ts []callOrReturn
	for i := range n {
		call, ret := times(i)
		ts = append(ts, callOrReturn{call, false, i})
		if ret >= 0 {
			ts = append(ts, callOrReturn{ret, true, i})
		}
	}
	sort.SliceStable(ts, func(a, b int) bool {
		if ts[a].t != ts[b].t {
			return ts[a].t < ts[b].t
		}
		return !ts[a].isRet && ts[b].isRet
	})
	return ts
}

// historyEvents turns operations into Call and Return events in time order
// (a call before a return at the same instant), numbered in that order.
func historyEvents(ops []histOp, unit time.Duration) []sim.Event {
	ts := inTimeOrder(len(ops), func(i int) (int64, int64) { return ops[i].Call, ops[i].Return })
	evs := make([]sim.Event, len(ts))
	for n, x := range ts {
		o := ops[x.i]
		var d sim.Data
		if x.isRet {
			out := o.Outcome
			if out == "" {
				out = etcdtrace.OutcomeOK
			}
			d = &etcdtrace.Return{Client: o.Client, Op: uint64(x.i), Outcome: out, Found: o.Found, Value: o.Got, Succeeded: o.Succeeded,
				Version: o.Version, ModRev: o.ModRev, CreateRev: o.Create, Rev: o.Rev, KVs: o.KVs}
		} else {
			d = &etcdtrace.Call{Client: o.Client, Op: uint64(x.i), Kind: o.Kind, Key: o.Key, End: o.End, Value: o.Value, Expect: o.Expect,
				ExpectAbsent: o.ExpectAbsent, Compares: o.Compares, Ops: o.Ops}
		}
		evs[n] = sim.Event{Seq: uint64(n), At: sim.Time(x.t * int64(unit)), Kind: sim.KindNode, Data: d}
	}
	return evs
}
