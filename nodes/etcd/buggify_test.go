package etcd

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// firing is one BUGGIFY firing as the trace shows it.
type firing struct {
	host sim.HostID
	at   sim.Time
	seq  uint64
	d    time.Duration
}

// tracedRun is what a test keeps of a run's trace: the firings of one
// point, every send, and every apply.
type tracedRun struct {
	point   sim.BuggifyPoint
	fired   []firing
	other   int // firings of other points
	sends   []sim.Event
	applies map[sim.HostID][]sim.Time
}

func traceRun(w *sim.World, point sim.BuggifyPoint) *tracedRun {
	r := &tracedRun{point: point, applies: map[sim.HostID][]sim.Time{}}
	w.Subscribe(func(e *sim.Event) {
		switch d := e.Data.(type) {
		case *sim.BuggifyEvent:
			if d.Point == point {
				r.fired = append(r.fired, firing{e.Host, e.At, e.Seq, d.Delay})
			} else {
				r.other++
			}
		case *etcdtrace.Apply:
			r.applies[e.Host] = append(r.applies[e.Host], e.At)
		}
		if e.Kind == sim.KindSend {
			r.sends = append(r.sends, *e)
		}
	})
	return r
}

// heldStream reports whether, after f, some destination (host and port)
// of f's host got nothing from the firing until at+d and something at
// at+d: a stream held back for the delay, then flushed.
func (r *tracedRun) heldStream(f firing, port func(string) bool) bool {
	type dest struct {
		to   sim.HostID
		port string
	}
	during, flushed := map[dest]bool{}, map[dest]bool{}
	end := f.at.Add(f.d)
	for _, e := range r.sends {
		if e.Host != f.host || !port(e.Port) || e.Seq < f.seq || e.At > end {
			continue
		}
		k := dest{e.Peer, e.Port}
		if e.At < end {
			during[k] = true
		} else {
			flushed[k] = true
		}
	}
	for _, k := range sortedDests(flushed, func(k dest) string { return fmt.Sprintf("%d/%s", k.to, k.port) }) {
		if !during[k] {
			return true
		}
	}
	return false
}

// sortedDests orders a set's keys by name (for a deterministic search).
func sortedDests[K comparable](m map[K]bool, name func(K) string) []K {
	byName := map[string]K{}
	// determinism: collection only; sorted below
	for k := range m {
		byName[name(k)] = k
	}
	var out []K
	for _, n := range sim.SortedKeys(byName) {
		out = append(out, byName[n])
	}
	return out
}

// appliedLate reports whether f's host applied nothing in (at, at+d) and
// something at at+d.
func (r *tracedRun) appliedLate(f firing) bool {
	end, flushed := f.at.Add(f.d), false
	for _, at := range r.applies[f.host] {
		if at > f.at && at < end {
			return false
		}
		flushed = flushed || at == end
	}
	return flushed
}

// TestBuggifyEtcdPoints: each of the member's BUGGIFY points, active
// alone, fires in a cluster under writes and a watch, and each firing did
// what the point says (an apply held back for its delay, a peer's stream
// held then flushed, a watch stream held then flushed), while the cluster
// stays correct: the members converge and the watch sees every revision
// once, in order. With the point inactive (the others active), it never
// fires; with BUGGIFY off, nothing fires at all.
func TestBuggifyEtcdPoints(t *testing.T) {
	isPeer := func(p string) bool { return p == PeerPort }
	for _, tc := range []struct {
		point sim.BuggifyPoint
		did   func(r *tracedRun, f firing) bool
	}{
		{sim.BuggifyApplyLag, (*tracedRun).appliedLate},
		{sim.BuggifySlowPeer, func(r *tracedRun, f firing) bool { return r.heldStream(f, isPeer) }},
		{sim.BuggifyLateWatch, func(r *tracedRun, f firing) bool {
			return r.heldStream(f, func(p string) bool { return !isPeer(p) })
		}},
	} {
		for _, mode := range []string{"on", "others", "off"} {
			t.Run(string(tc.point)+"/"+mode, func(t *testing.T) {
				cl := newCluster(t, 5, 3, nil, sim.DiskSpec{})
				switch mode {
				case "on":
					require.NoError(t, cl.w.EnableBuggify(tc.point))
				case "others":
					var others []sim.BuggifyPoint
					for _, p := range sim.BuggifyPoints() {
						if p.Point != tc.point {
							others = append(others, p.Point)
						}
					}
					require.NoError(t, cl.w.EnableBuggify(others...))
				}
				r := traceRun(cl.w, tc.point)
				c := cl.addClient("client")
				cl.waitLeader(5 * time.Second)
				var l watchLog
				cl.watch(c, WatchRequest{Key: "k", End: "l"}, &l)
				first := cl.w.Now()
				for i := 0; i < 300; i++ {
					_, err := cl.put(c, fmt.Sprintf("k%d", i%7), fmt.Sprint(i))
					require.NoError(t, err)
				}
				cl.requireConverged(5 * time.Second)
				cl.w.RunFor(time.Second)
				require.Len(t, l.revs, 300, "the watch saw every write")
				require.Equal(t, revRange(l.revs[0], l.revs[0]+299), l.revs, "in order, once each")
				require.Equal(t, len(r.fired), cl.w.BuggifyFired(tc.point))
				switch mode {
				case "on":
					require.NotEmpty(t, r.fired, "%s fired", tc.point)
					require.Zero(t, r.other)
					for _, f := range r.fired {
						info := pointInfo(tc.point)
						require.GreaterOrEqual(t, f.d, info.Min)
						require.Less(t, f.d, info.Max)
						if f.at >= first {
							require.True(t, tc.did(r, f), "%s at %v on host %d (delay %v) did what it says", tc.point, f.at, f.host, f.d)
						}
					}
				case "others":
					require.Empty(t, r.fired, "%s is not active", tc.point)
					require.Positive(t, r.other, "the others fire")
				case "off":
					require.Empty(t, r.fired)
					require.Zero(t, r.other)
					require.False(t, cl.w.BuggifyOn())
				}
			})
		}
	}
}

// pointInfo is the documentation of p.
func pointInfo(p sim.BuggifyPoint) sim.BuggifyInfo {
	for _, i := range sim.BuggifyPoints() {
		if i.Point == p {
			return i
		}
	}
	panic("no point " + p)
}
