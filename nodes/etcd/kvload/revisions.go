package kvload

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// revisionSpacing is the least time between two revisions a client keeps
// for historical reads, so that its memory reaches about a minute back,
// past a compaction or two.
const revisionSpacing = time.Second

// revisions are the header revisions a client saw, for historical reads
// (etcd's robustness tests read at the last revision a client saw, as
// "stale" gets): the latest, and up to 64 older ones at least a second
// apart.
type revisions struct {
	latest int64
	ring   [64]int64
	n      int
	last   sim.Time
}

// add records a revision seen at now.
func (r *revisions) add(rev int64, now sim.Time) {
	r.latest = max(r.latest, rev)
	if r.n > 0 && now.Sub(r.last) < revisionSpacing {
		return
	}
	r.ring[r.n%len(r.ring)] = rev
	r.n++
	r.last = now
}

// pick draws a revision to read at: the latest seen (2 in 5), revision 1,
// the store's first (1 in 10: compacted once the first compaction ran), or
// one of the older revisions kept (below the compact revision, once they
// are old enough).
func (r *revisions) pick(rng *sim.Stream) int64 {
	x := rng.IntN(10)
	switch {
	case r.latest == 0 || x == 0:
		return 1
	case x < 5 || r.n == 0:
		return r.latest
	}
	return r.ring[rng.IntN(min(r.n, len(r.ring)))]
}
