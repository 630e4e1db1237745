package apiserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// buggifyModes switch BUGGIFY on with point alone ("on"), with every
// other point ("others"), or not at all ("off").
func enableBuggify(t *testing.T, w *sim.World, point sim.BuggifyPoint, mode string) {
	switch mode {
	case "on":
		require.NoError(t, w.EnableBuggify(point))
	case "others":
		var others []sim.BuggifyPoint
		for _, p := range sim.BuggifyPoints() {
			if p.Point != point {
				others = append(others, p.Point)
			}
		}
		require.NoError(t, w.EnableBuggify(others...))
	}
}

// firings collects the trace's firings of point, and counts the others'.
type firings struct {
	point sim.BuggifyPoint
	at    []sim.Event
	delay []time.Duration
	other int
	sends []sim.Event
}

func watchFirings(w *sim.World, point sim.BuggifyPoint) *firings {
	f := &firings{point: point}
	w.Subscribe(func(e *sim.Event) {
		if b, ok := e.Data.(*sim.BuggifyEvent); ok {
			if b.Point == point {
				f.at, f.delay = append(f.at, *e), append(f.delay, b.Delay)
			} else {
				f.other++
			}
		}
		if e.Kind == sim.KindSend {
			f.sends = append(f.sends, *e)
		}
	})
	return f
}

// TestBuggifyEarly429: with apiserver-early-429 active, some requests are
// refused with 429 TooManyRequests and a Retry-After of 1 s, one per
// firing, and a refused create leaves no object (it never reached
// storage); every other request is served. Inactive, or with BUGGIFY
// off, no request is refused.
func TestBuggifyEarly429(t *testing.T) {
	for _, mode := range []string{"on", "others", "off"} {
		t.Run(mode, func(t *testing.T) {
			w := sim.NewWorld(3)
			enableBuggify(t, w, sim.BuggifyEarly429, mode)
			f := watchFirings(w, sim.BuggifyEarly429)
			tw := newWorldWith(t, w, 1, nil)
			refused := 0
			for i := 0; i < 200; i++ {
				name := fmt.Sprintf("p%d", i)
				resp := tw.do(0, create(newPod(name)))
				if resp.Status.Code == 429 {
					refused++
					require.Equal(t, apiwire.ReasonTooManyRequests, resp.Status.Reason)
					require.Equal(t, 1, resp.Status.RetryAfterSeconds)
					require.Equal(t, 404, tw.do(0, getPod(name)).Status.Code, "a refused create leaves no object")
					continue
				}
				require.True(t, resp.Status.OK(), "%+v", resp.Status)
			}
			require.Equal(t, len(f.at), w.BuggifyFired(sim.BuggifyEarly429))
			switch mode {
			case "on":
				require.Positive(t, refused)
				require.Equal(t, refused, len(f.at), "a 429 per firing (the gets too may be refused: none was)")
				for _, d := range f.delay {
					require.Equal(t, time.Second, d)
				}
			case "others":
				require.Zero(t, refused)
				require.Empty(t, f.at)
				require.Positive(t, f.other)
			case "off":
				require.Zero(t, refused)
				require.Empty(t, f.at)
				require.Zero(t, f.other)
			}
		})
	}
}

// TestBuggifyCacheBehind: with watch-cache-behind active, the watch cache
// takes some etcd watch responses late: each firing holds the server's
// watch stream to its client for the delay drawn (nothing from the
// firing until then, the held events at its end), and the watch still
// gets every creation once, in resourceVersion order. Inactive, or with
// BUGGIFY off, it never fires.
func TestBuggifyCacheBehind(t *testing.T) {
	for _, mode := range []string{"on", "others", "off"} {
		t.Run(mode, func(t *testing.T) {
			w := sim.NewWorld(4)
			enableBuggify(t, w, sim.BuggifyCacheBehind, mode)
			f := watchFirings(w, sim.BuggifyCacheBehind)
			tw := newWorldWith(t, w, 1, nil)
			id := tw.watchID()
			tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbWatch, Resource: "pods", Namespace: "default",
				WatchPort: "watch", WatchID: id})
			start := w.Now()
			// Until it fired a few times (a held cache asks no more until
			// it catches up), or 200 creations.
			n := 0
			for ; n < 200 || mode == "on" && len(f.at) < 3 && n < 2000; n++ {
				resp := tw.do(0, create(newPod(fmt.Sprintf("p%d", n))))
				if resp.Status.Code == 429 {
					continue // early-429, among the others
				}
				require.True(t, resp.Status.OK(), "%+v", resp.Status)
			}
			tw.run(2 * time.Second)
			evs := tw.eventsOf(id)
			var last int64
			for _, e := range evs {
				rv := parseRVForTest(t, e.Object.GetObjectMeta().ResourceVersion)
				require.Greater(t, rv, last, "in order, once each")
				last = rv
			}
			require.Equal(t, len(f.at), w.BuggifyFired(sim.BuggifyCacheBehind))
			switch mode {
			case "on":
				require.Len(t, evs, n, "every creation")
				require.NotEmpty(t, f.at)
				require.Zero(t, f.other)
				for i, e := range f.at {
					if e.At >= start {
						require.True(t, f.held(e, f.delay[i], tw.client.ID(), "watch"),
							"the cache behind at %v (delay %v) held its watch", e.At, f.delay[i])
					}
				}
			case "others":
				require.Empty(t, f.at)
				require.Positive(t, f.other)
			case "off":
				require.Len(t, evs, n)
				require.Empty(t, f.at)
				require.Zero(t, f.other)
			}
		})
	}
}

// held reports whether, after the firing e, its host sent nothing to
// (to, port) until e.At+d, and something then.
func (f *firings) held(e sim.Event, d time.Duration, to sim.HostID, port string) bool {
	end, flushed := e.At.Add(d), false
	for _, s := range f.sends {
		if s.Host != e.Host || s.Peer != to || s.Port != port || s.Seq < e.Seq || s.At > end {
			continue
		}
		if s.At < end {
			return false
		}
		flushed = true
	}
	return flushed
}

// parseRVForTest parses a resourceVersion.
func parseRVForTest(t *testing.T, rv string) int64 {
	var n int64
	_, err := fmt.Sscan(rv, &n)
	require.NoError(t, err)
	return n
}
