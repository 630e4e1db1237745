package apiserver

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// eventRing is a watch cache's history: a cyclic buffer of events whose
// capacity follows the write rate, as the real watchCache's does
// (k8s.io/apiserver, pkg/storage/cacher/watch_cache.go: updateCache,
// resizeCacheLocked, doCacheResizeLocked). It holds the events with
// positions [start, end); position p lives in buf[p%len(buf)]. Positions
// only grow, so a list that empties the ring keeps them increasing.
type eventRing struct {
	buf        []cacheEvent
	start, end int
}

// reset empties the ring and gives it capacity n.
func (r *eventRing) reset(n int) {
	r.buf = make([]cacheEvent, n)
	r.start, r.end = 0, 0
}

// clear empties the ring and keeps its capacity, as the real Replace does
// after a list (startIndex = endIndex).
func (r *eventRing) clear() {
	for p := r.start; p < r.end; p++ {
		r.buf[p%len(r.buf)] = cacheEvent{}
	}
	r.start = r.end
}

// len is the number of events held.
func (r *eventRing) len() int { return r.end - r.start }

// capacity is the ring's current capacity.
func (r *eventRing) capacity() int { return len(r.buf) }

// at returns the i-th oldest event held.
func (r *eventRing) at(i int) *cacheEvent { return &r.buf[(r.start+i)%len(r.buf)] }

// full reports whether the ring holds as many events as it can.
func (r *eventRing) full() bool { return r.end == r.start+len(r.buf) }

// push appends e. First the ring resizes (see resize); then, if it is
// still full, its oldest event is dropped, and push reports that one was.
func (r *eventRing) push(e cacheEvent, fresh time.Duration, lo, hi int) (removed bool) {
	r.resize(e.at, fresh, lo, hi)
	if r.full() {
		r.buf[r.start%len(r.buf)] = cacheEvent{}
		r.start++
		removed = true
	}
	r.buf[r.end%len(r.buf)] = e
	r.end++
	return removed
}

// resize adapts a full ring to the rate of events at time now: it doubles
// (up to hi) while even its oldest event is younger than fresh, so that it
// keeps fresh's worth of history, and halves (down to lo) once the newest
// quarter of its events reaches further back than fresh, which protects it
// from flapping between the two.
func (r *eventRing) resize(now sim.Time, fresh time.Duration, lo, hi int) {
	if !r.full() {
		return
	}
	n := len(r.buf)
	switch {
	case now.Sub(r.buf[r.start%n].at) < fresh:
		if m := min(2*n, hi); m > n {
			r.realloc(m)
		}
	case now.Sub(r.buf[(r.end-n/4)%n].at) > fresh:
		if m := max(n/2, lo); m < n {
			r.realloc(m)
		}
	}
}

// realloc moves the events to a buffer of capacity m; a smaller one keeps
// only the newest m.
func (r *eventRing) realloc(m int) {
	if m < len(r.buf) {
		r.start = r.end - m
	}
	buf := make([]cacheEvent, m)
	for p := r.start; p < r.end; p++ {
		buf[p%m] = r.buf[p%len(r.buf)]
	}
	r.buf = buf
}
