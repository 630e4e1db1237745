package conformance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"google.golang.org/grpc/metadata"
)

// Real etcd timing bounds (wall clock).
const (
	realOpTimeout    = 5 * time.Second
	realWatchTimeout = 2 * time.Second
	progressPoll     = 5 * time.Millisecond
)

// Oracle is one embedded single-member etcd and a client to it.
type Oracle struct {
	etcd *embed.Etcd
	cli  *clientv3.Client
	dir  string
}

// freeURL returns a loopback URL on a port that was free a moment ago.
func freeURL() (url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}, err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return url.URL{}, err
	}
	return url.URL{Scheme: "http", Host: addr}, nil
}

// StartOracle starts an embedded etcd member on loopback addresses, with its
// data in a new temporary directory, and connects a client to it.
func StartOracle() (*Oracle, error) {
	dir, err := os.MkdirTemp("", "kubesim-conformance-etcd-")
	if err != nil {
		return nil, err
	}
	o := &Oracle{dir: dir}
	for attempt := 0; ; attempt++ {
		err = o.start()
		if err == nil {
			return o, nil
		}
		o.Close()
		if attempt == 2 {
			return nil, err
		}
		// A port picked as free may have been taken meanwhile: try again.
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
}

func (o *Oracle) start() error {
	curl, err := freeURL()
	if err != nil {
		return err
	}
	purl, err := freeURL()
	if err != nil {
		return err
	}
	return o.startMember("oracle", o.dir, curl, purl)
}

// startMember starts the embedded member name with its data in dir (new,
// or restored from a snapshot) and connects a client to it.
func (o *Oracle) startMember(name, dir string, curl, purl url.URL) error {
	cfg := embed.NewConfig()
	cfg.Name = name
	cfg.Dir = dir
	cfg.ListenClientUrls = []url.URL{curl}
	cfg.AdvertiseClientUrls = []url.URL{curl}
	cfg.ListenPeerUrls = []url.URL{purl}
	cfg.AdvertisePeerUrls = []url.URL{purl}
	cfg.InitialCluster = cfg.Name + "=" + purl.String()
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("start embedded etcd: %w", err)
	}
	o.etcd = e
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		return errors.New("embedded etcd not ready within 30s")
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{curl.String()},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return fmt.Errorf("client to embedded etcd: %w", err)
	}
	o.cli = cli
	return nil
}

// Close stops the member and removes its data.
func (o *Oracle) Close() {
	if o.cli != nil {
		_ = o.cli.Close()
		o.cli = nil
	}
	if o.etcd != nil {
		o.etcd.Close()
		o.etcd = nil
	}
	_ = os.RemoveAll(o.dir)
}

// realSide runs one sequence against the oracle. Real revisions are global
// across sequences, so they are mapped by the offset d: sim = real - d.
type realSide struct {
	cli     *clientv3.Client
	prefix  string
	d       int64
	watches []*realWatch
	// mem tracks the members by order of creation.
	mem *realMembers
	// o is the oracle; snapshots and restored members live in tmp;
	// restored lists the members started from a snapshot.
	o        *Oracle
	tmp      string
	snapPath string
	restored []*Oracle
}

// realWatch is one watch on its own gRPC stream, so that progress requests
// concern it alone.
type realWatch struct {
	idx    int
	ctx    context.Context
	cancel context.CancelFunc
	start  int64 // real start revision

	mu       sync.Mutex
	resps    []WatchResp
	progress int64 // highest progress notification revision seen
	closed   bool  // the channel closed (cancellation or end)
	done     chan struct{}
}

func newRealSide(o *Oracle, prefix string) (*realSide, error) {
	ctx, cancel := context.WithTimeout(context.Background(), realOpTimeout)
	defer cancel()
	// One write outside the sequence's keys first: it lifts the start
	// revision above any compaction of an earlier sequence, so that
	// compacting at the sequence's first revision behaves as on a fresh store.
	if _, err := o.cli.Put(ctx, strings.TrimSuffix(prefix, "/")+"-start", ""); err != nil {
		return nil, err
	}
	r, err := o.cli.Get(ctx, prefix)
	if err != nil {
		return nil, err
	}
	rs := &realSide{cli: o.cli, prefix: prefix, d: r.Header.Revision - 1, o: o}
	if err := rs.initMembers(ctx); err != nil {
		return nil, err
	}
	return rs, nil
}

// toReal maps a simulator revision to the real one; 0 (latest, or no
// revision) stays 0.
func (r *realSide) toReal(rev int64) int64 {
	if rev <= 0 {
		return rev
	}
	return rev + r.d
}

// toSim maps a real revision to the simulator's; 0 stays 0.
func (r *realSide) toSim(rev int64) int64 {
	if rev == 0 {
		return 0
	}
	return rev - r.d
}

// close cancels every watch and waits for their readers.
func (r *realSide) close() {
	for _, w := range r.watches {
		w.cancel()
		<-w.done
	}
	r.watches = nil
	for _, o := range r.restored {
		o.Close()
	}
	r.restored = nil
	if r.tmp != "" {
		_ = os.RemoveAll(r.tmp)
	}
}

// run performs op number idx and returns its normalized result. Watch
// responses are kept with each watch.
func (r *realSide) run(idx int, op Op) (Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), realOpTimeout)
	defer cancel()
	var res Result
	switch op.Kind {
	case KPut:
		resp, err := r.cli.Put(ctx, r.prefix+op.Key, op.Value, putOpts(op)...)
		if err != nil {
			res = Result{Err: normErr(err)}
			break
		}
		res = Result{Rev: r.toSim(resp.Header.Revision), PrevKV: r.kvp(resp.PrevKv)}
	case KGet:
		resp, err := r.cli.Get(ctx, r.prefix+op.Key, r.getOpts(op)...)
		if err != nil {
			res = Result{Err: normErr(err)}
			break
		}
		res = Result{Rev: r.toSim(resp.Header.Revision), KVs: r.kvs(resp.Kvs), Count: resp.Count, More: resp.More}
	case KDelete:
		resp, err := r.cli.Delete(ctx, r.prefix+op.Key, r.rangeOpts(op)...)
		if err != nil {
			res = Result{Err: normErr(err)}
			break
		}
		res = Result{Rev: r.toSim(resp.Header.Revision), Deleted: resp.Deleted, PrevKVs: r.kvs(resp.PrevKvs)}
	case KTxn:
		t := op.Txn
		resp, err := r.cli.Txn(ctx).If(r.cmps(t.Cmps)...).Then(r.ops(t.Then)...).Else(r.ops(t.Else)...).Commit()
		if err != nil {
			res = Result{Err: normErr(err)}
			break
		}
		res = r.txnResult(resp.Header, resp.Succeeded, resp.Responses)
	case KCompact:
		// Let every watch catch up first: etcd syncs a watch that starts
		// in the past on a 100 ms loop, and looks previous versions up as
		// it sends events, while the simulator does both at once. A
		// compaction in between would cancel the watch or hide a prevKV.
		if err := r.syncWatches(); err != nil {
			return Result{}, err
		}
		_, err := r.cli.Compact(ctx, r.toReal(op.Rev))
		res = Result{Err: normErr(err)}
	case KWatch:
		if err := r.watch(idx, op); err != nil {
			return Result{}, err
		}
	case KMemberList, KMemberAdd, KMemberPromote, KMemberRemove:
		return r.runMember(ctx, op)
	case KSnapshot:
		return r.snapshot(ctx)
	case KRestore:
		return r.restore(op)
	default:
		return Result{}, fmt.Errorf("unknown op kind %v", op.Kind)
	}
	return res, nil
}

// watch opens a watch on a stream of its own, so that progress requests
// concern it alone.
func (r *realSide) watch(idx int, op Op) error {
	md := metadata.AppendToOutgoingContext(context.Background(), "kubesim-conformance-watch", strconv.Itoa(idx))
	ctx, cancel := context.WithCancel(md)
	w := &realWatch{idx: idx, ctx: ctx, cancel: cancel, start: r.toReal(op.Rev), done: make(chan struct{})}
	opts := append([]clientv3.OpOption{clientv3.WithRev(w.start)}, r.rangeOpts(op)...)
	ch := r.cli.Watch(ctx, r.prefix+op.Key, opts...)
	r.watches = append(r.watches, w)
	go r.read(w, ch)
	return nil
}

// awaitProgress asks w's stream for progress notifications until one at
// revision rev or later arrives, or the watch ends, within realWatchTimeout.
func (r *realSide) awaitProgress(w *realWatch, rev int64) error {
	deadline := time.Now().Add(realWatchTimeout)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		ok := w.closed || w.progress >= rev
		w.mu.Unlock()
		if ok {
			return nil
		}
		ctx, cancel := context.WithTimeout(w.ctx, realOpTimeout)
		err := r.cli.RequestProgress(ctx)
		cancel()
		if err != nil && w.ctx.Err() == nil {
			return fmt.Errorf("watch #%d: request progress: %w", w.idx, err)
		}
		time.Sleep(progressPoll)
	}
	return nil // the comparison will show what is missing
}

// read normalizes w's responses until its channel closes.
func (r *realSide) read(w *realWatch, ch clientv3.WatchChan) {
	defer close(w.done)
	for resp := range ch {
		w.mu.Lock()
		if resp.IsProgressNotify() {
			w.progress = max(w.progress, resp.Header.Revision)
			w.mu.Unlock()
			continue
		}
		wr := WatchResp{Watch: w.idx, Rev: r.toSim(resp.Header.Revision), Canceled: resp.Canceled,
			CompactRev: r.toSim(resp.CompactRevision)}
		if err := resp.Err(); err != nil && !resp.Canceled && w.ctx.Err() == nil {
			wr.Err = err.Error()
		}
		for _, e := range resp.Events {
			ev := Event{Type: "PUT", KV: r.kv(e.Kv), PrevKV: r.kvp(e.PrevKv)}
			if e.Type == mvccpb.DELETE {
				ev.Type = "DELETE"
			}
			wr.Events = append(wr.Events, ev)
		}
		if w.ctx.Err() == nil {
			w.resps = append(w.resps, wr)
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// syncWatches waits until every watch has received everything up to the
// current revision: a progress notification at that revision has arrived
// (etcd sends none before a watch is synced and past its start revision,
// and sends it after the events before it), or the watch has ended.
func (r *realSide) syncWatches() error {
	if len(r.watches) == 0 {
		return nil // and no read, which a cluster without quorum would not answer
	}
	cur, err := r.currentRev()
	if err != nil {
		return err
	}
	// In parallel: etcd syncs every watch on the same 100 ms loop.
	errs := make([]error, len(r.watches))
	var wg sync.WaitGroup
	for i, w := range r.watches {
		if w.start > cur {
			continue // nothing can have happened, and etcd sends no progress before the start
		}
		wg.Go(func() { errs[i] = r.awaitProgress(w, cur) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// streams returns every watch's responses, by the index of the op that
// opened it.
func (r *realSide) streams() map[int][]WatchResp {
	out := map[int][]WatchResp{}
	for _, w := range r.watches {
		w.mu.Lock()
		out[w.idx] = append([]WatchResp(nil), w.resps...)
		w.mu.Unlock()
	}
	return out
}

func (r *realSide) currentRev() (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), realOpTimeout)
	defer cancel()
	resp, err := r.cli.Get(ctx, r.prefix, clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// option is a client option, and whether an op asks for it.
type option struct {
	on  bool
	opt clientv3.OpOption
}

// options returns the options asked for, in order.
func options(os ...option) []clientv3.OpOption {
	var out []clientv3.OpOption
	for _, o := range os {
		if o.on {
			out = append(out, o.opt)
		}
	}
	return out
}

func putOpts(op Op) []clientv3.OpOption {
	return options(option{op.PrevKV, clientv3.WithPrevKV()}, option{op.IgnoreValue, clientv3.WithIgnoreValue()})
}

// rangeOpts are the options of a delete or a watch: its range end (under
// the side's prefix), and whether it returns previous key-values.
func (r *realSide) rangeOpts(op Op) []clientv3.OpOption {
	return options(option{op.End != "", clientv3.WithRange(r.prefix + op.End)}, option{op.PrevKV, clientv3.WithPrevKV()})
}

func (r *realSide) getOpts(op Op) []clientv3.OpOption {
	return options(
		option{op.End != "", clientv3.WithRange(r.prefix + op.End)},
		option{op.Rev != 0, clientv3.WithRev(r.toReal(op.Rev))},
		option{op.Limit != 0, clientv3.WithLimit(op.Limit)},
		option{op.Serializable, clientv3.WithSerializable()},
		option{op.KeysOnly, clientv3.WithKeysOnly()},
		option{op.CountOnly, clientv3.WithCountOnly()},
	)
}

func (r *realSide) cmps(cs []Cmp) []clientv3.Cmp {
	var out []clientv3.Cmp
	for _, c := range cs {
		key := r.prefix + c.Key
		var x clientv3.Cmp
		switch c.Target {
		case "version":
			x = clientv3.Compare(clientv3.Version(key), c.Result, c.Num)
		case "create":
			x = clientv3.Compare(clientv3.CreateRevision(key), c.Result, r.toReal(c.Num))
		case "mod":
			x = clientv3.Compare(clientv3.ModRevision(key), c.Result, r.toReal(c.Num))
		case "value":
			x = clientv3.Compare(clientv3.Value(key), c.Result, c.Value)
		}
		if c.End != "" {
			x = x.WithRange(r.prefix + c.End)
		}
		out = append(out, x)
	}
	return out
}

func (r *realSide) ops(os []Op) []clientv3.Op {
	var out []clientv3.Op
	for _, o := range os {
		key := r.prefix + o.Key
		switch o.Kind {
		case KPut:
			out = append(out, clientv3.OpPut(key, o.Value, putOpts(o)...))
		case KGet:
			out = append(out, clientv3.OpGet(key, r.getOpts(o)...))
		case KDelete:
			out = append(out, clientv3.OpDelete(key, r.rangeOpts(o)...))
		case KTxn:
			out = append(out, clientv3.OpTxn(r.cmps(o.Txn.Cmps), r.ops(o.Txn.Then), r.ops(o.Txn.Else)))
		}
	}
	return out
}

func (r *realSide) txnResult(h *pb.ResponseHeader, succeeded bool, rs []*pb.ResponseOp) Result {
	res := Result{Rev: r.toSim(h.GetRevision()), Succeeded: succeeded, Responses: []Result{}}
	for _, op := range rs {
		var x Result
		switch {
		case op.GetResponseRange() != nil:
			rr := op.GetResponseRange()
			x = Result{Rev: r.toSim(rr.GetHeader().GetRevision()), KVs: r.kvs(rr.Kvs), Count: rr.Count, More: rr.More}
		case op.GetResponsePut() != nil:
			pr := op.GetResponsePut()
			x = Result{Rev: r.toSim(pr.GetHeader().GetRevision()), PrevKV: r.kvp(pr.PrevKv)}
		case op.GetResponseDeleteRange() != nil:
			dr := op.GetResponseDeleteRange()
			x = Result{Rev: r.toSim(dr.GetHeader().GetRevision()), Deleted: dr.Deleted, PrevKVs: r.kvs(dr.PrevKvs)}
		case op.GetResponseTxn() != nil:
			tr := op.GetResponseTxn()
			x = r.txnResult(tr.GetHeader(), tr.Succeeded, tr.Responses)
		}
		res.Responses = append(res.Responses, x)
	}
	return res
}

func (r *realSide) kv(kv *mvccpb.KeyValue) KV {
	return KV{Key: strings.TrimPrefix(string(kv.Key), r.prefix), Value: string(kv.Value),
		Create: r.toSim(kv.CreateRevision), Mod: r.toSim(kv.ModRevision), Version: kv.Version}
}

func (r *realSide) kvp(kv *mvccpb.KeyValue) *KV {
	if kv == nil {
		return nil
	}
	x := r.kv(kv)
	return &x
}

func (r *realSide) kvs(kvs []*mvccpb.KeyValue) []KV {
	var out []KV
	for _, kv := range kvs {
		out = append(out, r.kv(kv))
	}
	return out
}
