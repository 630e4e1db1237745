package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// InformerReplayOptions say what each informer watches, when the trace
// cannot tell. The zero value infers it.
type InformerReplayOptions struct {
	// Namespace returns the namespace an informer watches ("" for all). When
	// nil, an informer of a namespaced resource whose keys (in its events
	// and stores) all lie in one namespace is taken to watch that namespace,
	// and any other informer to watch every namespace.
	Namespace func(informer string) string
	// Filtered reports informers that watch through a label selector: they
	// see a subset of the objects, so only the ordering of their events is
	// checked, not their completeness against etcd, their relists or their
	// final store.
	Filtered func(informer string) bool
}

// InformerReplay checks that every informer replays the committed history
// of what it watches, as a client-go reflector must:
//   - ordered and unique: per object key, the resourceVersions of an
//     informer's watch events strictly increase (no duplicate, no reorder);
//     a relist (apitrace.Relist, whose store replacement is traced as the
//     informer's events at the same host and virtual time) is exempt, since
//     it replaces the store (going back there is time-travel's business);
//   - consistent relists: after every relist, whatever its reason
//     (including the 410 Gone that makes a reflector relist), the store
//     holds exactly the Items the list said and equals etcd's committed
//     state at the list's resourceVersion (same keys, same
//     resourceVersions): the store recovers;
//   - complete: every change committed in etcd (etcdtrace.Apply, under
//     /registry/<resource>/) to a key the informer watches, at a revision
//     its view has reached (the highest resourceVersion among its events,
//     relists and stores), is seen: as an event on that key with that
//     resourceVersion (a delete event carries the deletion's revision), or
//     covered by a relist at or after it. A delete therefore becomes a
//     delete event or disappears at a relist. A missed event between
//     relists (a watch resumed from "now" rather than its revision) fails;
//   - converged: the informer's last apitrace.Store equals what its own
//     events built, and the last apitrace.ServerState of its resource (in
//     its namespace): the same keys at the same resourceVersions. The
//     scenario must emit both after the run settles.
//
// A relist with reason "initial" starts a new informer process (at start,
// or after its host restarted) with an empty store, so the store its events
// build starts afresh there.
type InformerReplay struct {
	opts      InformerReplayOptions
	hist      registryHistory
	informers map[string]*replayInformer
	servers   map[string]*apitrace.ServerState // resource -> last
	serverAt  map[string]sim.Time
	serverSeq map[string]uint64
	rec       earliestOffenses
	events    int
	relists   int
}

// replayInformer is what the check knows of one informer.
type replayInformer struct {
	name, resource string
	lastRV         map[string]int64          // key -> resourceVersion of its last event
	store          map[string]int64          // the store its events built: key -> resourceVersion
	seen           map[string]map[int64]bool // key -> resourceVersions of its events
	namespaces     map[string]bool
	progress       int64
	maxRelist      int64
	// the relist in progress: its store replacement is still being traced
	inRelist bool
	relist   relistSnap
	snaps    []relistSnap // finished relists, checked at Finish
	last     *apitrace.Store
	lastAt   sim.Time
	lastSeq  uint64
}

// relistSnap is a relist and the store it left.
type relistSnap struct {
	at     sim.Time
	seq    uint64
	host   sim.HostID
	reason string
	rv     int64
	items  int
	store  map[string]int64
}

// NewInformerReplay returns the "informer-replay" check.
func NewInformerReplay(opts ...InformerReplayOptions) *InformerReplay {
	var o InformerReplayOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return &InformerReplay{opts: o, hist: newRegistryHistory(), informers: map[string]*replayInformer{},
		servers: map[string]*apitrace.ServerState{}, serverAt: map[string]sim.Time{}, serverSeq: map[string]uint64{}}
}

// Name implements Check.
func (c *InformerReplay) Name() string { return "informer-replay" }

func (c *InformerReplay) informer(name, resource string) *replayInformer {
	return getOrNew(c.informers, name, func() *replayInformer {
		return &replayInformer{name: name, resource: resource, lastRV: map[string]int64{}, store: map[string]int64{},
			seen: map[string]map[int64]bool{}, namespaces: map[string]bool{}}
	})
}

func (inf *replayInformer) noteKey(key string) {
	if ns, _, ok := strings.Cut(key, "/"); ok {
		inf.namespaces[ns] = true
	} else {
		inf.namespaces[""] = true
	}
}

// endRelist closes the relist in progress, if e is not part of it.
func (inf *replayInformer) endRelist(e *sim.Event) {
	if !inf.inRelist || (e != nil && e.At == inf.relist.at && e.Host == inf.relist.host) {
		return
	}
	inf.inRelist = false
	snap := inf.relist
	snap.store = make(map[string]int64, len(inf.store))
	// determinism: copies a map.
	for k, v := range inf.store {
		snap.store[k] = v
	}
	inf.snaps = append(inf.snaps, snap)
}

// Observe implements Check.
func (c *InformerReplay) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Apply:
		c.hist.apply(e, d)
	case *apitrace.Relist:
		c.relists++
		inf := c.informer(d.Informer, d.Resource)
		inf.endRelist(nil)
		if d.Reason == "initial" {
			// A first list: a new informer process (at start, or after its
			// host restarted) with an empty store.
			inf.store, inf.lastRV = map[string]int64{}, map[string]int64{}
		}
		rv, _ := parseRV(d.RV)
		inf.inRelist = true
		inf.relist = relistSnap{at: e.At, seq: e.Seq, host: e.Host, reason: d.Reason, rv: rv, items: d.Items}
		inf.maxRelist = max(inf.maxRelist, rv)
		inf.progress = max(inf.progress, rv)
	case *apitrace.InformerEvent:
		c.events++
		inf := c.informer(d.Informer, d.Resource)
		inf.endRelist(e)
		inf.noteKey(d.Key)
		rv, ok := parseRV(d.RV)
		if !ok {
			c.rec.add(e.At, e.Seq, "informer %s: %s event on %q has resourceVersion %q, not a revision", d.Informer, d.Type, d.Key, d.RV)
			return
		}
		if !inf.inRelist {
			if prev, had := inf.lastRV[d.Key]; had && rv <= prev {
				what := "reordered"
				if rv == prev {
					what = "duplicate"
				}
				c.rec.add(e.At, e.Seq, "informer %s: %s event: %s %q at resourceVersion %d after resourceVersion %d",
					d.Informer, what, d.Type, d.Key, rv, prev)
			}
			inf.progress = max(inf.progress, rv)
		}
		inf.lastRV[d.Key] = rv
		s := inf.seen[d.Key]
		if s == nil {
			s = map[int64]bool{}
			inf.seen[d.Key] = s
		}
		s[rv] = true
		if d.Type == "delete" {
			delete(inf.store, d.Key)
		} else {
			inf.store[d.Key] = rv
		}
	case *apitrace.Store:
		inf := c.informer(d.Informer, d.Resource)
		inf.endRelist(e)
		for _, it := range d.Items {
			inf.noteKey(it.Key)
		}
		if rv, ok := parseRV(d.RV); ok {
			inf.progress = max(inf.progress, rv)
		}
		cp := *d
		cp.Items = append([]apitrace.Item(nil), d.Items...)
		inf.last, inf.lastAt, inf.lastSeq = &cp, e.At, e.Seq
		// The snapshot must be what the informer's events built.
		if diff := diffStores(storeOfItems(d.Items), inf.store, "", "its events built"); diff != "" {
			c.rec.add(e.At, e.Seq, "informer %s: store snapshot differs from what its events built: %s", d.Informer, diff)
		}
	case *apitrace.ServerState:
		cp := *d
		cp.Items = append([]apitrace.Item(nil), d.Items...)
		c.servers[d.Resource] = &cp
		c.serverAt[d.Resource], c.serverSeq[d.Resource] = e.At, e.Seq
	}
}

// storeOfItems maps items' keys to their resourceVersions (-1 when not a
// revision).
func storeOfItems(items []apitrace.Item) map[string]int64 {
	out := make(map[string]int64, len(items))
	for _, it := range items {
		rv, ok := parseRV(it.RV)
		if !ok {
			rv = -1
		}
		out[it.Key] = rv
	}
	return out
}

// diffStores describes how store got differs from want (both restricted to
// namespace ns), naming up to five keys; "" when they agree.
func diffStores(got, want map[string]int64, ns, wantName string) string {
	var diffs []string
	n := 0
	for _, k := range sim.SortedKeys(got) {
		if !inNamespace(k, ns) {
			continue
		}
		w, ok := want[k]
		switch {
		case !ok:
			n++
			if len(diffs) < 5 {
				diffs = append(diffs, fmt.Sprintf("%q@%d not in %s", k, got[k], wantName))
			}
		case w != got[k]:
			n++
			if len(diffs) < 5 {
				diffs = append(diffs, fmt.Sprintf("%q@%d where %s has @%d", k, got[k], wantName, w))
			}
		}
	}
	for _, k := range sim.SortedKeys(want) {
		if _, ok := got[k]; ok || !inNamespace(k, ns) {
			continue
		}
		n++
		if len(diffs) < 5 {
			diffs = append(diffs, fmt.Sprintf("%q missing (%s has @%d)", k, wantName, want[k]))
		}
	}
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("%d key(s) differ: %s", n, strings.Join(diffs, ", "))
	if n > len(diffs) {
		s += ", ..."
	}
	return s
}

// scope returns the namespace inf watches and whether it is filtered.
func (c *InformerReplay) scope(inf *replayInformer) (string, bool) {
	filtered := c.opts.Filtered != nil && c.opts.Filtered(inf.name)
	if c.opts.Namespace != nil {
		return c.opts.Namespace(inf.name), filtered
	}
	if len(inf.namespaces) == 1 {
		ns := sim.SortedKeys(inf.namespaces)[0]
		return ns, filtered
	}
	return "", filtered
}

// Finish implements Check.
func (c *InformerReplay) Finish() Result {
	covered, compared := 0, 0
	for _, name := range sim.SortedKeys(c.informers) {
		inf := c.informers[name]
		inf.endRelist(nil)
		ns, filtered := c.scope(inf)
		if filtered {
			continue
		}
		for _, snap := range inf.snaps {
			if len(snap.store) != snap.items {
				c.rec.add(snap.at, snap.seq, "informer %s: relist (%s) at resourceVersion %d listed %d items but its store holds %d",
					name, snap.reason, snap.rv, snap.items, len(snap.store))
			}
			truth := c.hist.stateAt(inf.resource, ns, snap.rv)
			if diff := diffStores(snap.store, truth, ns, "etcd"); diff != "" {
				c.rec.add(snap.at, snap.seq, "informer %s: store after relist (%s) at resourceVersion %d is not etcd's state there: %s",
					name, snap.reason, snap.rv, diff)
			}
		}
		keys := c.hist.byRes[inf.resource]
		for _, key := range sim.SortedKeys(keys) {
			if !inNamespace(key, ns) {
				continue
			}
			for _, ch := range keys[key] {
				if ch.rev > inf.progress {
					break
				}
				covered++
				if inf.seen[key][ch.rev] || inf.maxRelist >= ch.rev {
					continue
				}
				what := "update"
				if ch.del {
					what = "delete"
				}
				c.rec.add(ch.at, ch.seq, "informer %s missed an event: the %s of %s %q committed at revision %d, though its view reached %d (no event at that revision and no relist since)",
					name, what, inf.resource, key, ch.rev, inf.progress)
			}
		}
		if inf.last != nil {
			if ss := c.servers[inf.resource]; ss != nil {
				compared++
				if diff := diffStores(storeOfItems(inf.last.Items), storeOfItems(ss.Items), ns, "the server"); diff != "" {
					at, seq := inf.lastAt, inf.lastSeq
					if seq < c.serverSeq[inf.resource] {
						at, seq = c.serverAt[inf.resource], c.serverSeq[inf.resource]
					}
					c.rec.add(at, seq, "informer %s: final store (resourceVersion %s) differs from the server state of %s (resourceVersion %s): %s",
						name, inf.last.RV, inf.resource, ss.RV, diff)
				}
			}
		}
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d informer(s): %d events and %d relists replay etcd's history (%d committed changes covered), %d final store(s) match the server",
		len(c.informers), c.events, c.relists, covered, compared))
}

var _ Check = (*InformerReplay)(nil)
