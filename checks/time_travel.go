package checks

import (
	"fmt"
	"slices"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TimeTravel checks that no informer's view of the cluster ever goes back
// in time: the failure of Kubernetes issue 59848, where a reflector that
// relists with resourceVersion "0" is served by an API server replica whose
// watch cache lags behind what the reflector already saw, and its store
// silently returns to an older state (objects revert, deleted objects come
// back).
//
// For each informer (apitrace.Relist and apitrace.InformerEvent; a
// relist's store replacement is traced as the informer's events at the same
// host and virtual time):
//   - its view, the highest resourceVersion among its relists and watch
//     events, never decreases: a relist's resourceVersion and every watch
//     event's are at least the view (and its apitrace.Store's, when it
//     emits one);
//   - a relist's store never holds an older resourceVersion for a key than
//     the informer had already seen for that key, and never resurrects a
//     key whose deletion it had already seen (an item older than the
//     deletion; a newer one is a re-creation).
//
// A relist with reason "initial" starts a new informer process (at start,
// or after its host restarted) with no memory, so it resets the view.
//
// A restore of etcd from a snapshot (etcdtrace.Restore) loses the writes
// after the snapshot's revision, its recovery point: a relist served by
// the restored cluster (at a resourceVersion at least the restored
// revision) may take a key back to its state at the recovery point when
// the informer had seen a later write of it, or bring back a key whose
// deletion after the recovery point it had seen. Nothing else is
// excused: the view must still never go back, so a restore that did not
// bump the revision above every revision handed out before
// (--bump-revision) shows as time travel.
type TimeTravel struct {
	informers map[string]*travelInformer
	restores  []travelRestore
	rec       Recorder
	relists   int
	events    int
}

// travelRestore is one restore: the snapshot's revision and the
// restored cluster's first revision.
type travelRestore struct{ point, rev int64 }

// travelInformer is what the check remembers of one informer.
type travelInformer struct {
	view     int64
	keyRV    map[string]int64 // present keys -> last resourceVersion seen
	deleted  map[string]int64 // keys whose deletion was seen -> its resourceVersion
	inRelist bool
	at       sim.Time
	host     sim.HostID
	listRV   int64
	reason   string
}

// NewTimeTravel returns the "time-travel" check.
func NewTimeTravel() *TimeTravel {
	return &TimeTravel{informers: map[string]*travelInformer{}}
}

// Name implements Check.
func (c *TimeTravel) Name() string { return "time-travel" }

func (c *TimeTravel) informer(name string) *travelInformer {
	return getOrNew(c.informers, name, func() *travelInformer {
		return &travelInformer{keyRV: map[string]int64{}, deleted: map[string]int64{}}
	})
}

// Observe implements Check.
func (c *TimeTravel) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *etcdtrace.Restore:
		r := travelRestore{point: d.SnapshotRev, rev: d.Rev}
		if !slices.Contains(c.restores, r) {
			c.restores = append(c.restores, r)
		}
	case *apitrace.Relist:
		c.relists++
		inf := c.informer(d.Informer)
		if d.Reason == "initial" {
			*inf = travelInformer{keyRV: map[string]int64{}, deleted: map[string]int64{}}
		}
		rv, ok := parseRV(d.RV)
		if !ok {
			return
		}
		if rv < inf.view {
			c.rec.Add(e, "time travel: informer %s relisted (%s) at resourceVersion %d, behind its view at %d (issue 59848: a stale list served by a lagging API server)",
				d.Informer, d.Reason, rv, inf.view)
		}
		inf.view = max(inf.view, rv)
		inf.inRelist, inf.at, inf.host, inf.listRV, inf.reason = true, e.At, e.Host, rv, d.Reason
	case *apitrace.InformerEvent:
		c.events++
		inf := c.informer(d.Informer)
		if inf.inRelist && (e.At != inf.at || e.Host != inf.host) {
			inf.inRelist = false
		}
		rv, ok := parseRV(d.RV)
		if !ok {
			return
		}
		if inf.inRelist {
			c.relistItem(e, d, inf, rv)
		} else {
			if rv < inf.view {
				c.rec.Add(e, "time travel: informer %s got a %s event on %q at resourceVersion %d, behind its view at %d",
					d.Informer, d.Type, d.Key, rv, inf.view)
			}
			inf.view = max(inf.view, rv)
		}
		if d.Type == "delete" {
			delete(inf.keyRV, d.Key)
			inf.deleted[d.Key] = rv
		} else {
			delete(inf.deleted, d.Key)
			inf.keyRV[d.Key] = rv
		}
	case *apitrace.Store:
		inf := c.informer(d.Informer)
		if rv, ok := parseRV(d.RV); ok && rv < inf.view {
			c.rec.Add(e, "time travel: informer %s's store is at resourceVersion %d, behind its view at %d", d.Informer, rv, inf.view)
		}
	}
}

// relistItem checks one store change a relist made.
func (c *TimeTravel) relistItem(e *sim.Event, d *apitrace.InformerEvent, inf *travelInformer, rv int64) {
	if d.Type == "delete" {
		return // a tombstone: the key is gone at the list's revision
	}
	if prev, ok := inf.keyRV[d.Key]; ok && rv < prev && !c.lostByRestore(inf.listRV, prev, rv) {
		c.rec.Add(e, "time travel: informer %s's relist (%s, resourceVersion %d) took %q back from resourceVersion %d to %d (issue 59848)",
			d.Informer, inf.reason, inf.listRV, d.Key, prev, rv)
	}
	if del, ok := inf.deleted[d.Key]; ok && rv < del && !c.lostByRestore(inf.listRV, del, rv) {
		c.rec.Add(e, "time travel: informer %s's relist (%s, resourceVersion %d) resurrected %q at resourceVersion %d, after seeing its deletion at %d (issue 59848)",
			d.Informer, inf.reason, inf.listRV, d.Key, rv, del)
	}
}

// lostByRestore reports whether a relist at listRV that shows a key at rv,
// after the informer saw it change at seen, shows the state a restore
// left: the list comes from the restored cluster, the change seen came
// after the restore's recovery point, and rv is at or below it.
func (c *TimeTravel) lostByRestore(listRV, seen, rv int64) bool {
	for _, r := range c.restores {
		if listRV >= r.rev && seen > r.point && rv <= r.point {
			return true
		}
	}
	return false
}

// Finish implements Check.
func (c *TimeTravel) Finish() Result {
	return c.rec.Result(c.Name(), fmt.Sprintf("%d informer(s): no view went back over %d relists and %d events", len(c.informers), c.relists, c.events))
}

var _ Check = (*TimeTravel)(nil)
