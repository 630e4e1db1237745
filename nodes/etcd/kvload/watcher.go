package kvload

import (
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// DefaultProgressInterval is how often a watcher asks for progress.
const DefaultProgressInterval = time.Second

// silentIntervals is how many progress intervals without any response make
// a watcher give up on its member.
const silentIntervals = 3

// reconnectBackoff is the pause before reopening after a failed open.
const reconnectBackoff = 100 * time.Millisecond

// WatcherConfig configures a watcher process.
type WatcherConfig struct {
	// Name is the watcher's name in the trace; empty means the host's name.
	Name string
	// Endpoints are the etcd members' hosts.
	Endpoints []sim.HostID
	// Key and End are the watched range [Key, End); default the whole "k"
	// prefix: Key "k", End "l".
	Key, End string
	// ProgressInterval is how often the watcher asks for a progress
	// notification; after 3 intervals with no response it resumes on the
	// next endpoint. Default 1 s.
	ProgressInterval time.Duration
}

// watcher keeps one watch open across member failures, resuming where the
// last stream stopped.
type watcher struct {
	h         *sim.Host
	cfg       WatcherConfig
	name      string
	c         *etcd.Client
	stream    uint64 // trace stream number of the current watch
	wh        *etcd.WatchHandle
	lastRev   int64 // every event up to here has been received
	lastHeard sim.Time
	tick      *sim.Timer
	op        uint64 // the last relist's op number
}

// BootWatcher returns the Boot function of a watcher host. It lists its
// range, watches from the next revision, emits etcdtrace.WatchOpen on
// every (re)open and etcdtrace.WatchResp for every response of its current
// stream, and resumes from the last revision seen + 1 on the next endpoint
// when the stream breaks or falls silent. On a compaction cancel it lists
// again and restarts after the list's revision.
func BootWatcher(cfg WatcherConfig) func(h *sim.Host) {
	if cfg.Key == "" {
		cfg.Key, cfg.End = "k", "l"
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	return func(h *sim.Host) {
		w := &watcher{h: h, cfg: cfg, name: traceName(h, cfg.Name)}
		w.c = etcd.NewClient(h, etcd.ClientConfig{Name: w.name, Endpoints: cfg.Endpoints})
		w.tick = h.NewTimer("watch-progress", w.handleTick)
		w.tick.Reset(cfg.ProgressInterval)
		w.relist()
	}
}

// relist reads the whole watched range (a linearizable Range, recorded as
// an etcdtrace.OpList call) and opens a watch after its revision: what a
// client that keeps the range's state must do at first and whenever its
// watch is canceled because its revision was compacted (etcd's clientv3
// reports ErrCompacted with the compact revision, kube-apiserver answers
// 410 Gone, and the reflector relists), since the changes in between are
// gone. A failed read is retried after a progress interval.
func (w *watcher) relist() {
	w.wh = nil
	w.op++
	op := w.op
	w.h.Emit(&etcdtrace.Call{Client: w.name, Op: op, Kind: etcdtrace.OpList, Key: w.cfg.Key, End: w.cfg.End})
	w.c.Get(w.cfg.Key, etcd.GetOptions{End: w.cfg.End}, func(res etcd.GetResult, err error) {
		ret := &etcdtrace.Return{Client: w.name, Op: op}
		switch {
		case err == nil:
			ret.Outcome, ret.Rev, ret.Member = etcdtrace.OutcomeOK, res.Revision, res.Member
			ret.KVs = readKVs(nil, 0, res.KVs)
		case etcd.DefinitelyNotApplied(err):
			ret.Outcome, ret.Err = etcdtrace.OutcomeFail, err.Error()
		default:
			ret.Outcome, ret.Err = etcdtrace.OutcomeUnknown, err.Error()
		}
		w.h.Emit(ret)
		if err != nil {
			w.h.After(w.cfg.ProgressInterval, "watch-reread", w.relist)
			return
		}
		w.open(res.Revision + 1)
	})
}

// open starts a new stream at startRev on the client's current endpoint.
func (w *watcher) open(startRev int64) {
	w.stream++
	stream := w.stream
	w.lastRev = startRev - 1
	w.lastHeard = w.h.Now()
	ep := w.c.Endpoint()
	w.h.Emit(&etcdtrace.WatchOpen{
		Watcher: w.name, Stream: stream, Member: w.h.World().HostName(ep),
		Key: w.cfg.Key, End: w.cfg.End, StartRev: startRev,
	})
	w.wh = w.c.Watch(etcd.WatchRequest{Key: w.cfg.Key, End: w.cfg.End, StartRev: startRev},
		func(r etcd.WatchResponse) { w.handleResp(stream, r) })
}

// handleResp records a response of stream, if it is the current one.
func (w *watcher) handleResp(stream uint64, r etcd.WatchResponse) {
	if stream != w.stream || w.wh == nil {
		return
	}
	if r.Err != nil {
		w.wh = nil
		w.h.After(reconnectBackoff, "watch-reconnect", w.resume)
		return
	}
	w.lastHeard = w.h.Now()
	w.h.Emit(&etcdtrace.WatchResp{
		Watcher: w.name, Stream: stream, Member: r.Member, Rev: r.Revision,
		Progress: r.Progress, Canceled: r.Canceled, CompactRev: r.CompactRevision,
		Events: etcd.AppendChanges(nil, r.Events, func(b []byte) string { return string(b) }),
	})
	switch {
	case r.Canceled:
		w.relist()
	case len(r.Events) > 0:
		w.lastRev = r.Events[len(r.Events)-1].Kv.ModRevision
	case r.Progress:
		w.lastRev = max(w.lastRev, r.Revision)
	}
}

// handleTick asks for progress, or gives up on a silent member.
func (w *watcher) handleTick() {
	w.tick.Reset(w.cfg.ProgressInterval)
	if w.wh == nil {
		return
	}
	if w.h.Now().Sub(max(w.lastHeard, w.wh.Alive())) >= silentIntervals*w.cfg.ProgressInterval {
		w.wh.Cancel()
		w.wh = nil
		w.resume()
		return
	}
	w.wh.RequestProgress()
}

// resume reopens on the next endpoint from the last revision seen + 1.
func (w *watcher) resume() {
	if w.wh != nil {
		return
	}
	w.c.NextEndpoint()
	w.open(w.lastRev + 1)
}
