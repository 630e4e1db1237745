package kvload

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// timedCall is a Call or Return of one client, with when it was emitted.
type timedCall struct {
	at   sim.Time
	call *etcdtrace.Call // nil for a Return
	ret  *etcdtrace.Return
}

// clientRun runs 3 members and the given clients for d, fault-free, and
// returns each client's Calls and Returns in trace order.
func clientRun(t *testing.T, seed uint64, d time.Duration, cfgs ...ClientConfig) map[string][]timedCall {
	t.Helper()
	wd := newWorld(seed, func(w *sim.World, eps []sim.HostID) {
		for i, cfg := range cfgs {
			cfg.Name = fmt.Sprintf("c%d", i)
			cfg.Endpoints = eps
			w.MustAddHost(sim.HostSpec{Name: cfg.Name, Role: "client", Boot: BootClient(cfg)})
		}
	})
	byClient := map[string][]timedCall{}
	wd.w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *etcdtrace.Call:
			c := *d
			byClient[d.Client] = append(byClient[d.Client], timedCall{at: e.At, call: &c})
		case *etcdtrace.Return:
			r := *d
			byClient[d.Client] = append(byClient[d.Client], timedCall{at: e.At, ret: &r})
		}
	})
	wd.w.RunFor(d)
	return byClient
}

// TestLearnRangeTeachesAbsence: a linearizable read teaches the client the
// keys it returned, and that every other key of the range it read is
// absent; keys outside the range keep what the client knew. The client's
// compare-and-swaps and guarded txns compare against this knowledge, so a
// key wrongly taught absent (or left stale) makes its compares fail.
func TestLearnRangeTeachesAbsence(t *testing.T) {
	old := known{value: "old", mod: 5}
	kv := func(key, value string, mod int64) mvcc.KeyValue {
		return mvcc.KeyValue{Key: []byte(key), Value: []byte(value), ModRevision: mod}
	}
	for _, tc := range []struct {
		name     string
		key, end string
		kvs      []mvcc.KeyValue
		want     map[string]known // keys whose knowledge changes
	}{
		{name: "get of a present key", key: "k4", kvs: []mvcc.KeyValue{kv("k4", "v", 9)},
			want: map[string]known{"k4": {value: "v", mod: 9}}},
		{name: "get of an absent key", key: "k4",
			want: map[string]known{"k4": {absent: true}}},
		// Group 1 of 10 keys is k3, k4, k5; its range is [k3, k6).
		{name: "range of a group", key: "k3", end: "k6", kvs: []mvcc.KeyValue{kv("k4", "v", 9)},
			want: map[string]known{"k3": {absent: true}, "k4": {value: "v", mod: 9}, "k5": {absent: true}}},
		{name: "empty range of a group", key: "k3", end: "k6",
			want: map[string]known{"k3": {absent: true}, "k4": {absent: true}, "k5": {absent: true}}},
		{name: "range of the last group", key: "k9", end: "l",
			want: map[string]known{"k9": {absent: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &kvClient{ks: newKeyspace(10), known: map[string]known{}}
			for _, key := range k.ks.keys {
				k.known[key] = old
			}
			k.learn(tc.key, tc.end, tc.kvs)
			for _, key := range k.ks.keys {
				want, ok := tc.want[key]
				if !ok {
					want = old
				}
				require.Equal(t, want, k.known[key], "key %s after reading [%s, %s)", key, tc.key, tc.end)
			}
		})
	}
}

// TestLoneClientComparesHold: a client that is the only writer of its keys,
// on a fault-free cluster, always knows their current values (it learns
// from its own successful writes and its linearizable reads), so every
// compare-and-swap and every guarded txn it makes succeeds. A client that
// failed to learn its own writes would compare against stale values.
func TestLoneClientComparesHold(t *testing.T) {
	ops := clientRun(t, 3, 20*time.Second, ClientConfig{Keys: 4})["c0"]
	calls := map[uint64]*etcdtrace.Call{}
	cas, guarded := 0, 0
	for _, e := range ops {
		if e.call != nil {
			calls[e.call.Op] = e.call
			continue
		}
		c := calls[e.ret.Op]
		require.Equal(t, etcdtrace.OutcomeOK, e.ret.Outcome, "op %d %s: %s", c.Op, c.Kind, e.ret.Err)
		switch {
		case c.Kind == etcdtrace.OpCAS:
			cas++
			require.True(t, e.ret.Succeeded, "op %d: CAS %s expecting %q (absent %v) failed", c.Op, c.Key, c.Expect, c.ExpectAbsent)
		case c.Kind == etcdtrace.OpTxn && len(c.Compares) > 0:
			guarded++
			require.True(t, e.ret.Succeeded, "op %d: txn compare %+v failed", c.Op, c.Compares)
		}
	}
	require.Greater(t, cas, 20)
	require.Greater(t, guarded, 20)
}

// TestThinkIsTheMeanPause: a client pauses between an operation's return
// and the next call for an exponentially distributed time whose mean is
// ClientConfig.Think, DefaultThink when Think is not positive.
func TestThinkIsTheMeanPause(t *testing.T) {
	for _, tc := range []struct {
		think, want time.Duration
	}{
		{0, DefaultThink},
		{-time.Millisecond, DefaultThink},
		{100 * time.Millisecond, 100 * time.Millisecond},
	} {
		t.Run(tc.think.String(), func(t *testing.T) {
			ops := clientRun(t, 5, 400*tc.want, ClientConfig{Think: tc.think})["c0"]
			var sum time.Duration
			n := 0
			for i := 1; i < len(ops); i++ {
				if ops[i-1].ret != nil && ops[i].call != nil {
					sum += ops[i].at.Sub(ops[i-1].at)
					n++
				}
			}
			require.Greater(t, n, 200)
			mean := sum / time.Duration(n)
			// The mean of n exponential draws is within 4 standard
			// deviations (want/sqrt(n)) of want.
			tol := time.Duration(4 * float64(tc.want) / math.Sqrt(float64(n)))
			require.InDelta(t, float64(tc.want), float64(mean), float64(tol), "mean pause over %d ops", n)
		})
	}
}

// TestUntilStopsNewOperations: a client with Until set starts operations
// until then, and none after.
func TestUntilStopsNewOperations(t *testing.T) {
	until := 3 * time.Second
	ops := clientRun(t, 2, 6*time.Second, ClientConfig{Until: until})["c0"]
	var last sim.Time
	calls, returns := 0, 0
	for _, e := range ops {
		if e.call == nil {
			returns++
			continue
		}
		calls++
		require.Less(t, e.at, sim.Time(until), "op %d started after Until", e.call.Op)
		last = e.at
	}
	require.Greater(t, calls, 50)
	require.Equal(t, calls, returns, "every call returned")
	require.Greater(t, last, sim.Time(until-time.Second), "the client kept working until near Until")
}

// TestOperationMix: over many operations, each kind of operation makes up
// its share of opMix (after etcd's robustness traffic): a get is a call
// of one key at the current revision, a range read one of a range at the
// current revision, a historical read one at a past revision. Every txn
// has at least one put, and half of them are guarded by a compare (as
// startTxn documents, after etcd's MultiOpTxn).
func TestOperationMix(t *testing.T) {
	var cfgs []ClientConfig
	for range 4 {
		cfgs = append(cfgs, ClientConfig{Think: time.Millisecond})
	}
	byClient := clientRun(t, 4, 10*time.Second, cfgs...)
	count := map[opChoice]int{}
	n, guarded := 0, 0
	for _, ops := range byClient {
		for _, e := range ops {
			c := e.call
			if c == nil {
				continue
			}
			n++
			switch {
			case c.Kind == etcdtrace.OpGet && c.Rev != 0:
				count[chooseHistorical]++
			case c.Kind == etcdtrace.OpGet && c.End != "":
				count[chooseRange]++
			case c.Kind == etcdtrace.OpGet:
				count[chooseGet]++
			case c.Kind == etcdtrace.OpPut:
				count[choosePut]++
			case c.Kind == etcdtrace.OpCAS:
				count[chooseCAS]++
			case c.Kind == etcdtrace.OpDelete:
				count[chooseDelete]++
			case c.Kind == etcdtrace.OpTxn:
				count[chooseTxn]++
				puts := 0
				for _, op := range c.Ops {
					if !op.Else && op.Type == etcdtrace.TxnPut {
						puts++
					}
				}
				require.Positive(t, puts, "a txn has at least one put: %+v", c.Ops)
				if len(c.Compares) > 0 {
					guarded++
				}
			default:
				t.Fatalf("unexpected call %+v", c)
			}
		}
	}
	t.Logf("%d calls: %v", n, count)
	require.Greater(t, n, 3000)
	total := 0
	for _, m := range opMix {
		total += m.pct
		p := float64(m.pct) / 100
		sd := math.Sqrt(float64(n) * p * (1 - p))
		require.InDelta(t, p*float64(n), float64(count[m.kind]), 4*sd, "kind %d: %d of %d calls, want %d%%", m.kind, count[m.kind], n, m.pct)
	}
	require.Equal(t, 100, total, "the mix is in percent")
	txns := float64(count[chooseTxn])
	require.InDelta(t, txns/2, float64(guarded), 4*math.Sqrt(txns/4), "half the txns are guarded: %d of %v", guarded, txns)
}
