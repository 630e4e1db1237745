package sim

import (
	"fmt"
	"time"
)

// BUGGIFY (after FoundationDB's): code points in the simulated processes
// that, in a run that switches it on, now and then take a path that is
// rare in a real cluster but legal: an apply that lags its commit, a slow
// peer stream, an early 429. Faults break the world from outside; BUGGIFY
// makes the processes themselves take the unlikely branch, so that the
// code behind it, and the checks that judge it, are reached.
//
// Three draws decide what happens, each from a stream of its own, so that
// a run with BUGGIFY off draws nothing and is byte for byte the run it was
// before BUGGIFY existed, and one with it on draws for every other
// component what it would draw anyway:
//
//  1. the run: World.EnableBuggify switches it on (scenarios' Options.Buggify,
//     `kubesim run --buggify`); it is off unless asked for;
//  2. each point, once per run: active with probability BuggifyActiveChance,
//     from the stream "buggify/active/<point>" (FoundationDB activates a
//     section per run too, so that a run either exercises a path or not,
//     rather than every path a little);
//  3. each time a process asks an active point: it fires with the point's
//     Chance, from the stream "<host>/buggify/<point>", and a delay is
//     drawn from the same stream.

// BuggifyPoint names a code point that BUGGIFY can make take its rare path.
type BuggifyPoint string

// The points, each asked at one place in a node package (see buggifyInfos
// for what each does and the real behaviour it stands for).
const (
	// BuggifyApplyLag (nodes/etcd, finishReady) applies a Ready's
	// committed entries later instead of at once.
	BuggifyApplyLag BuggifyPoint = "etcd-apply-lag"
	// BuggifySlowPeer (nodes/etcd, sendMessages) holds one peer's Raft
	// messages past a heartbeat interval, in order.
	BuggifySlowPeer BuggifyPoint = "raft-slow-peer"
	// BuggifyEarly429 (nodes/apiserver, serve) refuses a request with 429
	// and a Retry-After before it reaches authorization or storage.
	BuggifyEarly429 BuggifyPoint = "apiserver-early-429"
	// BuggifyLateWatch (nodes/etcd, flushWatches) holds a watch stream's
	// responses back, in order, as etcd does for a blocked watcher.
	BuggifyLateWatch BuggifyPoint = "etcd-watch-late"
	// BuggifyCacheBehind (nodes/apiserver, the watch cache's etcd watch)
	// applies etcd's watch responses to the cache later, in order.
	BuggifyCacheBehind BuggifyPoint = "watch-cache-behind"
)

// BuggifyActiveChance is the probability that a point is active in a run
// with BUGGIFY on: a half, as swarm testing switches features (Groce et
// al., ISSTA 2012), so that every subset of the points is as likely and a
// point's path is seen both with and without the others.
const BuggifyActiveChance = 0.5

// BuggifyInfo is everything said of a point: where it is asked, what it
// does when it fires, the real behaviour it stands for (with the real
// code that takes that path), how often it fires when active, and the
// delay it draws, if any. docs/buggify.md is generated from it.
type BuggifyInfo struct {
	Point BuggifyPoint
	// Where is the node code that asks it.
	Where string
	// Does is what the process does when it fires.
	Does string
	// Real is the behaviour of a real cluster it stands for, and the code
	// that takes that path.
	Real string
	// Chance is the probability that an ask of an active point fires.
	Chance float64
	// Min and Max bound the delay it draws (uniform in [Min, Max), or
	// Min when they are equal); both 0 for a point that draws none.
	Min, Max time.Duration
}

// buggifyInfos are the points, in documentation order.
var buggifyInfos = []BuggifyInfo{
	{
		Point: BuggifyApplyLag, Where: "nodes/etcd: finishReady (buggify.go, applyCommitted)",
		Does: "a Ready's committed entries are applied after a delay instead of at once; the Readys after it queue their entries behind them, and reads wait for the apply as they always do. " +
			"A batch with a membership change is applied at once, and so is everything queued before it or before a snapshot",
		Real: "etcd applies on its own goroutine, behind raft's commit: raftNode.start hands a Ready's committed entries to the apply loop on applyc and goes on " +
			"(server/etcdserver/raft.go), and EtcdServer.applyAll runs them when the FIFO scheduler gets to them (server/etcdserver/server.go), so under load the applied index trails the committed one " +
			"(up to maxGapBetweenApplyAndCommitIndex, 5000 entries, before proposals get ErrTooManyRequests: server/etcdserver/v3_server.go); a follower waits for a pending membership change to be applied before it sends (waitApply)",
		Chance: 0.02, Min: 5 * time.Millisecond, Max: 100 * time.Millisecond,
	},
	{
		Point: BuggifySlowPeer, Where: "nodes/etcd: sendMessages (buggify.go, sendToPeer)",
		Does: "a Raft message to one peer, and every later one to that peer, waits past a heartbeat interval before it is sent, in order (a heartbeat interval to three, below the election timeout)",
		Real: "etcd sends to each peer over a long-lived stream (rafthttp's streamWriter, server/etcdserver/api/rafthttp/stream.go, with a buffer of streamBufSize 4096 messages): " +
			"a congested link or a peer that reads slowly holds every message behind the one in flight, heartbeats included, while the other peers' streams flow",
		Chance: 0.005, Min: 100 * time.Millisecond, Max: 300 * time.Millisecond,
	},
	{
		Point: BuggifyEarly429, Where: "nodes/apiserver: serve",
		Does: "an authenticated request is refused with 429 TooManyRequests and a Retry-After of 1 s before it is authorized or reaches storage; client-go sends it again after the Retry-After (nodes/client, doRetrying)",
		Real: "API Priority and Fairness rejects a request its priority level cannot seat or queue: WithPriorityAndFairness answers tooManyRequests with the Retry-After of the dropped-requests tracker, 1 s to start with " +
			"(k8s.io/apiserver, pkg/server/filters/priority-and-fairness.go; pkg/util/flowcontrol/dropped_requests_tracker.go), after authentication and before authorization; " +
			"client-go's rest.Request retries any verb answered 429 with a Retry-After, up to maxRetries 10 (rest/with_retry.go, IsNextRetry; rest/request.go, checkWait)",
		Chance: 0.02, Min: time.Second, Max: time.Second,
	},
	{
		Point: BuggifyLateWatch, Where: "nodes/etcd: flushWatches (buggify.go, sendWatch)",
		Does: "a watch response with events, and every later response of its stream, is held back and sent after a delay, in order: " +
			"the events arrive as late as etcd's guarantees allow, which is before anything that comes after them on their stream, a progress notification included",
		Real: "etcd's watchableStore.notify moves a watcher whose channel (chanBufLen 128) is full to its victims; syncVictimsLoop retries them every 10 ms, and a victim that fell behind joins the unsynced watchers " +
			"that syncWatchersLoop catches up every watchResyncPeriod, 100 ms (server/storage/mvcc/watchable_store.go); meanwhile progressIfSync sends it no progress notification",
		Chance: 0.03, Min: 10 * time.Millisecond, Max: 200 * time.Millisecond,
	},
	{
		Point: BuggifyCacheBehind, Where: "nodes/apiserver: the watch cache's etcd watch (buggify.go, cache.receive)",
		Does: "an etcd watch response, and every later one of the stream, reaches the watch cache after a delay, in order: reads served from the cache are that much staler, " +
			"and a read or watch that needs a newer revision waits for it, well within the 3 s freshness timeout",
		Real: "the watch cache trails etcd: the cacher's reflector takes etcd3's watch results from a channel and the watchCache processes them on its own goroutine, " +
			"feeding dispatchEvents through the cacher's incoming channel (k8s.io/apiserver, pkg/storage/cacher/cacher.go, watch_cache.go); a request that needs a revision the cache has not reached " +
			"waits in waitUntilFreshAndBlock for up to its 3 s blockTimeout",
		Chance: 0.03, Min: 50 * time.Millisecond, Max: 500 * time.Millisecond,
	},
}

// BuggifyPoints documents every point, in documentation order.
func BuggifyPoints() []BuggifyInfo { return append([]BuggifyInfo(nil), buggifyInfos...) }

// ParseBuggifyPoint returns the point named name.
func ParseBuggifyPoint(name string) (BuggifyPoint, error) {
	if buggifyIndex(BuggifyPoint(name)) < 0 {
		var names []string
		for _, p := range buggifyInfos {
			names = append(names, string(p.Point))
		}
		return "", fmt.Errorf("unknown BUGGIFY point %q (want one of %v)", name, names)
	}
	return BuggifyPoint(name), nil
}

// buggifyIndex is p's position in buggifyInfos, or -1.
func buggifyIndex(p BuggifyPoint) int {
	for i := range buggifyInfos {
		if buggifyInfos[i].Point == p {
			return i
		}
	}
	return -1
}

// buggifyRun is a run's BUGGIFY: which points are active, and how often
// each fired.
type buggifyRun struct {
	active []bool // by buggifyInfos index
	fired  []int
}

// EnableBuggify switches BUGGIFY on for the run, before the world runs.
// With no points named, each point is active with BuggifyActiveChance,
// drawn from its own stream; with points named, exactly those are active
// (tests of one point). Calling it again, or after the world started, is
// an error.
func (w *World) EnableBuggify(only ...BuggifyPoint) error {
	if w.buggify != nil {
		return fmt.Errorf("sim: BUGGIFY is already on")
	}
	if w.booted {
		return fmt.Errorf("sim: BUGGIFY must be switched on before the world runs")
	}
	b := &buggifyRun{active: make([]bool, len(buggifyInfos)), fired: make([]int, len(buggifyInfos))}
	for _, p := range only {
		i := buggifyIndex(p)
		if i < 0 {
			_, err := ParseBuggifyPoint(string(p))
			return err
		}
		b.active[i] = true
	}
	if len(only) == 0 {
		for i, p := range buggifyInfos {
			b.active[i] = NewStream(w.seed, "buggify/active/"+string(p.Point)).Float64() < BuggifyActiveChance
		}
	}
	w.buggify = b
	return nil
}

// BuggifyOn reports whether BUGGIFY is on for the run.
func (w *World) BuggifyOn() bool { return w.buggify != nil }

// BuggifyActive lists the points active in the run, in documentation
// order: none when BUGGIFY is off.
func (w *World) BuggifyActive() []BuggifyPoint {
	if w.buggify == nil {
		return nil
	}
	var out []BuggifyPoint
	for i, on := range w.buggify.active {
		if on {
			out = append(out, buggifyInfos[i].Point)
		}
	}
	return out
}

// BuggifyFired returns how many times point p fired so far.
func (w *World) BuggifyFired(p BuggifyPoint) int {
	if i := buggifyIndex(p); w.buggify != nil && i >= 0 {
		return w.buggify.fired[i]
	}
	return 0
}

// Buggify asks point p whether to take its rare path now: never when
// BUGGIFY is off or p is not active in the run, otherwise with p's
// Chance, drawn from the host's stream of p. A firing is traced as a
// BuggifyEvent on h.
func (h *Host) Buggify(p BuggifyPoint) bool {
	_, ok := h.buggify(p, false)
	return ok
}

// BuggifyDelay is Buggify for a point that delays something: when p
// fires it also returns the delay, uniform in p's [Min, Max), drawn from
// the same stream.
func (h *Host) BuggifyDelay(p BuggifyPoint) (time.Duration, bool) {
	return h.buggify(p, true)
}

func (h *Host) buggify(p BuggifyPoint, delay bool) (time.Duration, bool) {
	b := h.w.buggify
	if b == nil {
		return 0, false
	}
	i := buggifyIndex(p)
	if i < 0 || !b.active[i] {
		return 0, false
	}
	if h.buggifyStreams == nil {
		h.buggifyStreams = make([]*Stream, len(buggifyInfos))
	}
	s := h.buggifyStreams[i]
	if s == nil {
		s = h.Rand("buggify/" + string(p))
		h.buggifyStreams[i] = s
	}
	info := &buggifyInfos[i]
	if s.Float64() >= info.Chance {
		return 0, false
	}
	var d time.Duration
	if delay {
		d = time.Duration(Jitter(s, int64(info.Min), int64(info.Max-info.Min)))
	}
	b.fired[i]++
	h.Emit(&BuggifyEvent{Point: p, Delay: d})
	return d, true
}

// KindBuggify is the trace kind of a BuggifyEvent.
const KindBuggify = "buggify"

// BuggifyEvent is the Data of the trace event a point traces on its host
// each time it fires: which point, and the delay it drew, if any.
type BuggifyEvent struct {
	Point BuggifyPoint  `json:"point"`
	Delay time.Duration `json:"delay_ns,omitempty"`
}

// TraceKind implements Data.
func (e *BuggifyEvent) TraceKind() string { return KindBuggify }

// AppendText implements Data.
func (e *BuggifyEvent) AppendText(b []byte) []byte {
	t := Text(b).Str("point", string(e.Point))
	if e.Delay != 0 {
		t = t.Str("delay", e.Delay.String())
	}
	return t.Trimmed()
}
