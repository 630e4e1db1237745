package etcd

import (
	"errors"
	"strconv"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
	"github.com/kubesim/kubesim/sim"
)

// Client defaults.
const (
	// DefaultClientTimeout is etcdctl's --command-timeout.
	DefaultClientTimeout = 5 * time.Second
	// DefaultReplyPort is where a client receives RPC replies.
	DefaultReplyPort = "etcd-reply"
	// retryBackoff is the pause before a safe retry on another endpoint.
	retryBackoff = 50 * time.Millisecond
	// minReadAttempt is the shortest per-endpoint wait of a read.
	minReadAttempt = time.Second
)

// ClientConfig configures a Client.
type ClientConfig struct {
	// Name identifies the client; empty means the host's name.
	Name string
	// Endpoints are the members' hosts, tried in order with failover.
	Endpoints []sim.HostID
	// RequestTimeout bounds every request, retries included. Default 5 s.
	RequestTimeout time.Duration
	// ReplyPort is where replies arrive; watch responses arrive on
	// ReplyPort+"-watch". Default "etcd-reply".
	ReplyPort string
}

// Client is an etcd client on a simulated host, with endpoint failover.
// Only safe retries happen: a read may be retried on another endpoint within
// the overall timeout; a write is retried only after an answer proving that
// it was not applied (no leader). A write without an answer fails with an
// error for which IsUnknownOutcome is true.
type Client struct {
	h       *sim.Host
	cfg     ClientConfig
	rpc     *sim.RPC
	rand    *sim.Stream
	id      string // identity in request IDs: name and incarnation
	seq     uint64
	cur     int
	streams uint64
	watches []*WatchHandle
}

// NewClient makes a client on h. Call it from the host's Boot.
func NewClient(h *sim.Host, cfg ClientConfig) *Client {
	cfg.Name = defaults.HostName(cfg.Name, h)
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultClientTimeout
	}
	if cfg.ReplyPort == "" {
		cfg.ReplyPort = DefaultReplyPort
	}
	c := &Client{
		h:    h,
		cfg:  cfg,
		rpc:  sim.NewRPC(h, cfg.ReplyPort),
		rand: h.Rand("etcd-client/" + cfg.ReplyPort),
		id:   cfg.Name + "@" + strconv.FormatUint(h.Incarnation(), 10),
		// Stream numbers carry the incarnation: a restarted process's
		// watches are new gRPC streams on new connections, never the
		// streams its predecessor opened, which a member may still hold
		// (it tells streams apart by host and number).
		streams: h.Incarnation() << 32,
	}
	h.Handle(cfg.ReplyPort+"-watch", c.handleWatchMessage)
	return c
}

// Endpoint returns the endpoint the client currently talks to.
func (c *Client) Endpoint() sim.HostID {
	if len(c.cfg.Endpoints) == 0 {
		return sim.NoHost
	}
	return c.cfg.Endpoints[c.cur]
}

// NextEndpoint moves the client to the next endpoint and returns it.
func (c *Client) NextEndpoint() sim.HostID {
	if len(c.cfg.Endpoints) > 0 {
		c.cur = (c.cur + 1) % len(c.cfg.Endpoints)
	}
	return c.Endpoint()
}

// failover moves on from ep, unless another request already did.
func (c *Client) failover(ep sim.HostID) {
	if c.Endpoint() == ep {
		c.NextEndpoint()
	}
}

// GetOptions are the options of Get.
type GetOptions struct {
	// Rev reads at a past revision; 0 means the latest.
	Rev int64
	// Serializable reads the answering member's local state, without a
	// ReadIndex round: fast, possibly stale.
	Serializable bool
	// End makes the read a range [key, End); empty reads the key alone.
	End string
	// Limit caps the number of keys returned; 0 means no limit.
	Limit int64
}

// GetResult answers Get.
type GetResult struct {
	Header
	KVs   []mvcc.KeyValue
	Count int64
	More  bool
}

// PutResult answers Put.
type PutResult struct{ Header }

// DeleteResult answers Delete.
type DeleteResult struct {
	Header
	Deleted int64
}

// TxnResult answers Txn.
type TxnResult struct {
	Header
	Succeeded bool
	Responses []mvcc.OpResponse
}

// FirstRange returns the key-values the Txn's first operation read, or nil
// when it was no Range: what a compare-and-swap's Failure branch reads to
// learn the current value, as the API server's GuaranteedUpdate and
// conditionalDelete do (k8s.io/apiserver, pkg/storage/etcd3/store.go).
func (r TxnResult) FirstRange() []mvcc.KeyValue {
	if len(r.Responses) > 0 && r.Responses[0].Range != nil {
		return r.Responses[0].Range.KVs
	}
	return nil
}

// Get reads key (or the range [key, opts.End)).
func (c *Client) Get(key string, opts GetOptions, done func(GetResult, error)) {
	req := &rangeRequest{Key: []byte(key), Rev: opts.Rev, Limit: opts.Limit, Serializable: opts.Serializable}
	if opts.End != "" {
		req.End = []byte(opts.End)
	}
	c.do(false, req, func(r *reply, err error) {
		if err != nil {
			done(GetResult{}, err)
			return
		}
		done(GetResult{Header: r.Header, KVs: r.Range.KVs, Count: r.Range.Count, More: r.Range.More}, nil)
	})
}

// Put writes value under key.
func (c *Client) Put(key, value string, done func(PutResult, error)) {
	w := &writeRequest{Op: opPut, Key: []byte(key), Value: []byte(value)}
	c.do(true, w, func(r *reply, err error) {
		if err != nil {
			done(PutResult{}, err)
			return
		}
		done(PutResult{Header: r.Header}, nil)
	})
}

// Delete deletes key.
func (c *Client) Delete(key string, done func(DeleteResult, error)) {
	w := &writeRequest{Op: opDelete, Key: []byte(key)}
	c.do(true, w, func(r *reply, err error) {
		if err != nil {
			done(DeleteResult{}, err)
			return
		}
		done(DeleteResult{Header: r.Header, Deleted: r.Delete.Deleted}, nil)
	})
}

// Txn runs a transaction.
func (c *Client) Txn(req mvcc.TxnRequest, done func(TxnResult, error)) {
	w := &writeRequest{Op: opTxn, Txn: &req}
	c.do(true, w, func(r *reply, err error) {
		if err != nil {
			done(TxnResult{}, err)
			return
		}
		done(TxnResult{Header: r.Header, Succeeded: r.Txn.Succeeded, Responses: r.Txn.Responses}, nil)
	})
}

// Compact compacts the store's history up to rev, through Raft.
func (c *Client) Compact(rev int64, done func(error)) {
	w := &writeRequest{Op: opCompact, Rev: rev}
	c.do(true, w, func(_ *reply, err error) { done(err) })
}

// Status asks one member for its status, without failover.
func (c *Client) Status(endpoint sim.HostID, done func(StatusResult, error)) {
	c.rpc.Call(endpoint, ClientPort, &statusRequest{}, c.cfg.RequestTimeout, func(resp any, err error) {
		r, ok := resp.(*reply)
		switch {
		case err != nil:
			done(StatusResult{}, ErrDeadlineExceeded)
		case !ok || r.Status == nil:
			done(StatusResult{}, replyErr(r, ok))
		default:
			done(*r.Status, nil)
		}
	})
}

// replyErr is the error of a reply that carries no result.
func replyErr(r *reply, ok bool) error {
	if ok && r.Err != nil {
		return r.Err
	}
	return ErrUnknownRequest
}

// attempt is one request across its retries.
type attempt struct {
	write    bool
	body     any
	deadline sim.Time
	done     func(*reply, error)
}

// do sends a request with failover. A write gets a fresh request ID, kept
// across its retries.
func (c *Client) do(write bool, body any, done func(*reply, error)) {
	switch w := body.(type) {
	case *writeRequest:
		c.seq++
		w.ID = requestID{Client: c.id, Seq: c.seq}
	case *memberRequest:
		c.seq++
		w.ID = requestID{Client: c.id, Seq: c.seq}
	}
	c.try(&attempt{write: write, body: body, deadline: c.h.Now().Add(c.cfg.RequestTimeout), done: done})
}

// try makes one attempt on the current endpoint.
func (c *Client) try(a *attempt) {
	remaining := a.deadline.Sub(c.h.Now())
	if remaining <= 0 || len(c.cfg.Endpoints) == 0 {
		a.done(nil, ErrDeadlineExceeded)
		return
	}
	timeout := remaining
	if !a.write {
		per := max(c.cfg.RequestTimeout/time.Duration(len(c.cfg.Endpoints)), minReadAttempt)
		timeout = min(remaining, per)
	}
	ep := c.Endpoint()
	c.rpc.Call(ep, ClientPort, a.body, timeout, func(resp any, err error) {
		if err != nil {
			c.failover(ep)
			if a.write {
				a.done(nil, ErrDeadlineExceeded) // outcome unknown: never retried
				return
			}
			c.try(a)
			return
		}
		r, ok := resp.(*reply)
		if !ok {
			a.done(nil, ErrUnknownRequest)
			return
		}
		if r.Err == nil {
			a.done(r, nil)
			return
		}
		if c.isRetriable(a, r.Err) {
			c.failover(ep)
			c.retryLater(a, r.Err)
			return
		}
		a.done(nil, r.Err)
	})
}

// isRetriable reports whether a request that failed with err may be sent
// again: a write only when it was certainly not proposed, a read after any
// error that another member might not give.
func (c *Client) isRetriable(a *attempt, err error) bool {
	if errors.Is(err, ErrNoLeader) || errors.Is(err, ErrNotLeader) ||
		errors.Is(err, ErrLearnerNotSupported) || errors.Is(err, ErrStopped) {
		return true // not proposed: another member may serve it
	}
	return !a.write && (errors.Is(err, ErrLeaderChanged) || errors.Is(err, ErrTimeout))
}

// retryLater retries after a short jittered backoff, if time remains;
// otherwise the request fails with the last error, err.
func (c *Client) retryLater(a *attempt, err error) {
	d := time.Duration(sim.Jitter(c.rand, int64(retryBackoff), int64(retryBackoff)))
	if c.h.Now().Add(d) >= a.deadline {
		a.done(nil, err)
		return
	}
	c.h.After(d, "etcd-client-retry", func() { c.try(a) })
}
