package checks

import (
	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
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
}

// kvOperations turns the history into porcupine operations per key. The
// rules:
//   - an OK call uses its answer;
//   - a read that failed, timed out or never returned is dropped (it
//     changed nothing and told nothing);
//   - a failed write is dropped, because etcdtrace.OutcomeFail promises the
//     operation did not happen; with failedMayApply it is kept as unknown;
//   - a write that timed out or never returned may or may not have taken
//     effect: it gets an unconstrained (Unknown) output (and callRecord.operation
//     gives it a return time of +infinity).
func kvOperations(h *kvHistory, failedMayApply bool) (keyedHistory, kvHistoryStats) {
	var st kvHistoryStats
	kh := h.keyed(func(c *loggedCall[KVInput, kvReturn]) (string, porcupine.Operation, bool) {
		read := c.in.Kind == etcdtrace.OpGet
		out, unknown := c.out.out, false
		switch {
		case c.returned && c.out.outcome == etcdtrace.OutcomeOK:
		case read:
			st.droppedReads++
			return "", porcupine.Operation{}, false
		case c.returned && c.out.outcome == etcdtrace.OutcomeFail && !failedMayApply:
			st.droppedWrites++
			return "", porcupine.Operation{}, false
		default:
			out, unknown = KVOutput{Unknown: true}, true
			st.unknownWrites++
		}
		if read {
			st.reads++
		} else {
			st.writes++
		}
		return c.in.Key, c.operation(c.in, out, unknown), true
	})
	return kh, st
}
