package checks

import (
	"hash/fnv"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// kvReturn is what a KV call's Return event told: its outcome and answer.
type kvReturn struct {
	outcome etcdtrace.Outcome
	out     KVOutput
}

// kvHistory is the KV calls clients recorded, in call order.
type kvHistory = callLog[KVInput, kvReturn]

// kvHistoryStats counts how the calls of a history were used.
type kvHistoryStats struct {
	reads, writes, unknownWrites int
	droppedReads, droppedWrites  int
	// neverApplied counts the writes of unknown outcome dropped because no
	// member applied any value they put.
	neverApplied int
	// historical counts lists and historical gets, which historical-reads
	// judges.
	historical int
}

// kvOperations turns the history into porcupine operations per connected
// component of keys (kvComponents). The rules:
//   - an OK call uses its answer;
//   - a list, and a get at a past revision, are left to historical-reads;
//   - a read that failed, timed out or never returned is dropped (it
//     changed nothing and told nothing);
//   - a failed write is dropped, because etcdtrace.OutcomeFail promises the
//     operation did not happen; with failedMayApply it is kept as unknown;
//   - a write that timed out or never returned may or may not have taken
//     effect: it gets an unconstrained (Unknown) output (and callRecord.operation
//     gives it a return time of +infinity), unless it puts values none of
//     which is in applied (no member applied it: it never took effect, and
//     is dropped).
func kvOperations(h *kvHistory, failedMayApply bool, applied map[uint64]bool) (keyedHistory, kvHistoryStats) {
	var st kvHistoryStats
	var src []int
	var ops []porcupine.Operation
	for i := 0; i < h.len(); i++ {
		c := h.at(i)
		if c.in.Kind == etcdtrace.OpList || c.in.Rev != 0 {
			st.historical++
			continue
		}
		read := !c.in.Kind.Writes()
		out, unknown := c.out.out, false
		switch {
		case c.returned && c.out.outcome == etcdtrace.OutcomeOK:
		case read:
			st.droppedReads++
			continue
		case c.returned && c.out.outcome == etcdtrace.OutcomeFail && !failedMayApply:
			st.droppedWrites++
			continue
		case neverApplied(c.in, applied):
			st.neverApplied++
			continue
		default:
			out, unknown = KVOutput{Unknown: true}, true
			st.unknownWrites++
		}
		if read {
			st.reads++
		} else {
			st.writes++
		}
		src = append(src, i)
		ops = append(ops, c.operation(c.in, out, unknown))
	}
	names, comp := kvComponents(len(ops), func(i int) ([]string, []keyRange) {
		return kvTouch(ops[i].Input.(KVInput), ops[i].Output.(KVOutput))
	})
	kh := keyedHistory{keys: names, parts: make([][]porcupine.Operation, len(names)), src: make([][]int, len(names))}
	for i, op := range ops {
		c := comp[i]
		kh.parts[c] = append(kh.parts[c], op)
		kh.src[c] = append(kh.src[c], src[i])
	}
	return kh, st
}

// neverApplied reports whether a write puts values (a put's, a cas's, a
// txn's puts in either branch) and no member applied any of them. A write
// that puts nothing (a delete, a txn of deletes) is never known not to
// have happened, and nothing is known without the applies (applied nil).
func neverApplied(in KVInput, applied map[uint64]bool) bool {
	if applied == nil {
		return false
	}
	var values []string
	switch in.Kind {
	case etcdtrace.OpPut, etcdtrace.OpCAS:
		values = append(values, in.Value)
	case etcdtrace.OpTxn:
		for _, op := range in.Ops {
			if op.Type == etcdtrace.TxnPut {
				values = append(values, op.Value)
			}
		}
	}
	for _, v := range values {
		if applied[valueHash(v)] {
			return false
		}
	}
	return len(values) > 0
}

// valueHash is the FNV-1a hash of a value.
func valueHash(v string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(v))
	return h.Sum64()
}
