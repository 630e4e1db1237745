package checks

import (
	"math"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

// kvOp is one client call of a KV history, from its Call and (if one came)
// Return event.
type kvOp struct {
	client   int // index into kvHistory.clients
	op       uint64
	in       KVInput
	call     sim.Time
	callSeq  uint64
	returned bool
	ret      sim.Time
	retSeq   uint64
	outcome  etcdtrace.Outcome
	out      KVOutput
}

// callID names a call: its client and the client's op number.
type callID struct {
	client string
	op     uint64
}

// kvHistory collects Call/Return pairs, in call order.
type kvHistory struct {
	ops       kvOps
	pending   map[callID]int // call -> index in ops, until it returns
	clientIDs map[string]int
	clients   []string
	orphans   int // returns without a call
}

// kvOps is an append-only list of ops in fixed-size chunks, so that
// growing it never copies the ops already recorded.
type kvOps struct {
	chunks [][]kvOp
	n      int
}

const kvOpsChunk = 256

func (o *kvOps) len() int { return o.n }

func (o *kvOps) at(i int) *kvOp { return &o.chunks[i/kvOpsChunk][i%kvOpsChunk] }

func (o *kvOps) add(op kvOp) {
	if o.n%kvOpsChunk == 0 {
		o.chunks = append(o.chunks, make([]kvOp, 0, kvOpsChunk))
	}
	c := &o.chunks[len(o.chunks)-1]
	*c = append(*c, op)
	o.n++
}

func newKVHistory() kvHistory {
	return kvHistory{pending: map[callID]int{}, clientIDs: map[string]int{}}
}

func (h *kvHistory) observeCall(e *sim.Event, d *etcdtrace.Call) {
	ci, ok := h.clientIDs[d.Client]
	if !ok {
		ci = len(h.clients)
		h.clientIDs[d.Client] = ci
		h.clients = append(h.clients, d.Client)
	}
	h.pending[callID{d.Client, d.Op}] = h.ops.len()
	h.ops.add(kvOp{
		client: ci, op: d.Op, call: e.At, callSeq: e.Seq,
		in: KVInput{Kind: d.Kind, Key: d.Key, Value: d.Value, Expect: d.Expect, ExpectAbsent: d.ExpectAbsent},
	})
}

func (h *kvHistory) observeReturn(e *sim.Event, d *etcdtrace.Return) {
	id := callID{d.Client, d.Op}
	i, ok := h.pending[id]
	if !ok {
		h.orphans++
		return
	}
	delete(h.pending, id)
	op := h.ops.at(i)
	op.returned, op.ret, op.retSeq, op.outcome = true, e.At, e.Seq, d.Outcome
	op.out = KVOutput{Found: d.Found, Value: d.Value, Version: d.Version, Succeeded: d.Succeeded}
}

// kvHistoryStats counts how the calls of a history were used.
type kvHistoryStats struct {
	reads, writes, unknownWrites int
	droppedReads, droppedWrites  int
	keys                         int
}

// operations turns the history into porcupine operations per key, in key
// order, and says which op each came from. The rules:
//   - an OK call uses its answer;
//   - a read that failed, timed out or never returned is dropped (it
//     changed nothing and told nothing);
//   - a failed write is dropped, because etcdtrace.OutcomeFail promises the
//     operation did not happen; with failedMayApply it is kept as unknown;
//   - a write that timed out or never returned may or may not have taken
//     effect: it gets an unconstrained (Unknown) output and a return time
//     of +infinity, so it may take effect at any point after its call, or
//     never (by being ordered after everything else).
func (h *kvHistory) operations(failedMayApply bool) (keys []string, parts [][]porcupine.Operation, src [][]int, st kvHistoryStats) {
	index := map[string]int{} // key -> position in byKey
	var byKey [][]porcupine.Operation
	var srcByKey [][]int
	for i := 0; i < h.ops.len(); i++ {
		op := h.ops.at(i)
		read := op.in.Kind == etcdtrace.OpGet
		out, ret := op.out, int64(op.ret)
		switch {
		case op.returned && op.outcome == etcdtrace.OutcomeOK:
		case read:
			st.droppedReads++
			continue
		case op.returned && op.outcome == etcdtrace.OutcomeFail && !failedMayApply:
			st.droppedWrites++
			continue
		default:
			out, ret = KVOutput{Unknown: true}, math.MaxInt64
			st.unknownWrites++
		}
		if read {
			st.reads++
		} else {
			st.writes++
		}
		k, ok := index[op.in.Key]
		if !ok {
			k = len(byKey)
			index[op.in.Key] = k
			byKey = append(byKey, nil)
			srcByKey = append(srcByKey, nil)
		}
		byKey[k] = append(byKey[k], porcupine.Operation{ClientId: op.client, Input: op.in, Call: int64(op.call), Output: out, Return: ret})
		srcByKey[k] = append(srcByKey[k], i)
	}
	keys = sim.SortedKeys(index)
	st.keys = len(keys)
	for _, k := range keys {
		parts = append(parts, byKey[index[k]])
		src = append(src, srcByKey[index[k]])
	}
	return keys, parts, src, st
}
