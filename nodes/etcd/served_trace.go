package etcd

import (
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// traceServedRange traces a Range answer (Config.TraceServed):
// etcdtrace.ServedRange.
func (m *member) traceServedRange(r *rangeRequest, res *mvcc.RangeResult, err error) {
	ev := &etcdtrace.ServedRange{Member: m.cfg.Name, Key: string(r.Key), End: string(r.End), At: r.Rev, Limit: r.Limit, Rev: m.store.Rev()}
	if err != nil {
		ev.Err = err.Error()
	} else {
		ev.Rev, ev.Count, ev.Keys = res.Rev, res.Count, len(res.KVs)
		ev.Hash = etcdtrace.StateHash(StateChanges(res.KVs))
	}
	m.h.Emit(ev)
}

// traceServedWatch traces a watch response sent on ws
// (Config.TraceServed): etcdtrace.ServedWatch.
func (m *member) traceServedWatch(ws *watchStream, resp *mvcc.WatchResponse) {
	m.h.Emit(&etcdtrace.ServedWatch{Member: m.cfg.Name, Stream: ws.stream, Rev: resp.Revision,
		Canceled: resp.Canceled, CompactRev: resp.CompactRevision, Events: AppendChanges(nil, resp.Events, sharedString)})
}
