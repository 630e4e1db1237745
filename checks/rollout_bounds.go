package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// RolloutBounds judges the Deployment controller's promise to a rolling
// update, at every ReplicaSet resize it commits, against the committed
// state: the pods a Deployment's ReplicaSets ask for never exceed
// spec.replicas + maxSurge, and old replicas are scaled down only while
// spec.replicas - maxUnavailable stay available
// (k8s.io/kubernetes pkg/controller/deployment/rolling.go:
// reconcileNewReplicaSet with deploymentutil.NewRSNewReplicas, and
// reconcileOldReplicaSets with cleanupUnhealthyReplicas and
// scaleDownOldReplicaSetsForRollingUpdate).
//
// The controller decides on its informers' view, which lags the committed
// state, so each resize is judged against the most favourable view the
// controller could have held, never against a state it could not see:
//   - A ReplicaSet's update carries its resourceVersion, so the controller
//     read the version it replaced (or, for the new ReplicaSet whose
//     annotations the same sync had just brought up to date, the one
//     before); a watch delivers in revision order, so its view held every
//     other ReplicaSet as of that version's revision at least, and at most
//     as committed now. A create's lower bound comes from the controller
//     manager's writes and its informer (see controllerManagerHosts.write).
//   - Each other ReplicaSet of the Deployment counts with its smallest
//     spec.replicas (for the surge), or its largest
//     status.availableReplicas (for availability), over that window.
//   - The Deployment's bounds are those of a committed version whose
//     spec.replicas the written desired-replicas annotation names (any
//     version, if none does): the surge with the largest
//     replicas+maxSurge, availability with the smallest
//     replicas-maxUnavailable.
//
// A scale-up of a ReplicaSet (a create with replicas, or an update that
// raises them) fails when, even so, the Deployment's ReplicaSets then ask
// for more than replicas+maxSurge. A scale-down fails when it removes more
// available replicas (status.availableReplicas, as the controller counts
// them) than the Deployment's available replicas exceed
// replicas-maxUnavailable; a resize that changes the desired-replicas
// annotation (the Deployment's replicas changed: proportional scaling,
// which maxUnavailable does not bound) and a Recreate Deployment's are not
// judged for availability. Availability lost to pods dying is not the
// controller's doing and is not judged; what the controller removes is.
//
// The Deployment controller is the only writer of a Deployment's
// ReplicaSets' spec in kubesim's scenarios.
type RolloutBounds struct {
	revs    appliedRevs
	rs      map[string][]rsVersion  // ReplicaSet key -> versions
	ofDep   map[string][]string     // Deployment UID -> keys of the ReplicaSets it ever controlled, sorted
	deps    map[string][]depVersion // Deployment UID -> versions
	lower   map[string]int64        // ReplicaSet key -> the lower bound its creation was judged with
	cms     controllerManagerHosts
	rec     Recorder
	ups     int
	downs   int
	creates int
	blind   int // creates no controller manager was seen sending
}

// NewRolloutBounds returns the "rollout-bounds" check.
func NewRolloutBounds() *RolloutBounds {
	return &RolloutBounds{rs: map[string][]rsVersion{}, ofDep: map[string][]string{}, deps: map[string][]depVersion{},
		lower: map[string]int64{}, cms: controllerManagerHosts{hosts: map[sim.HostID]*cmView{}}}
}

// Name implements Check.
func (c *RolloutBounds) Name() string { return "rollout-bounds" }

// Observe implements Check.
func (c *RolloutBounds) Observe(e *sim.Event) {
	c.cms.observe(e)
	d, ok := c.revs.of(e)
	if !ok {
		return
	}
	for ch := range registryChanges(d) {
		switch ch.res {
		case model.ResourceDeploymentsName:
			if ch.Type == etcdtrace.ChangePut {
				if uid, v, ok := decodeDepVersion(ch.ModRev, ch.Value); ok {
					c.deps[uid] = append(c.deps[uid], v)
				}
			}
		case model.ResourceReplicaSetsName:
			c.replicaSet(e, ch, d.Rev)
		}
	}
}

// replicaSet records a committed change of a ReplicaSet and judges it.
func (c *RolloutBounds) replicaSet(e *sim.Event, ch registryChange, rev int64) {
	l := c.rs[ch.key]
	prev, had := rsAt(l, rev)
	if ch.Type != etcdtrace.ChangePut {
		if had && !prev.gone {
			c.rs[ch.key] = append(l, rsVersion{rev: rev, gone: true})
		}
		return
	}
	v, ok := decodeRSVersion(rev, ch.Value)
	if !ok {
		return
	}
	c.rs[ch.key] = append(l, v)
	if v.owner == "" {
		return
	}
	c.remember(v.owner, ch.key)
	created := !had || prev.gone || prev.uid != v.uid
	old := prev.replicas
	if created {
		old = 0
	}
	if v.replicas == old {
		return
	}
	lo, ok := c.lowerBound(ch.key, l, created)
	if !ok {
		c.blind++
		return
	}
	if v.replicas > old {
		c.judgeSurge(e, ch.key, v, old, lo, created)
		return
	}
	if v.desired == prev.desired {
		c.judgeAvailability(e, ch.key, v, prev, lo)
	}
}

// remember notes that Deployment uid controls ReplicaSet key.
func (c *RolloutBounds) remember(uid, key string) {
	keys := c.ofDep[uid]
	for _, k := range keys {
		if k == key {
			return
		}
	}
	keys = append(keys, key)
	for i := len(keys) - 1; i > 0 && keys[i] < keys[i-1]; i-- {
		keys[i], keys[i-1] = keys[i-1], keys[i]
	}
	c.ofDep[uid] = keys
}

// lowerBound is the lowest revision the view a resize of key was decided
// on may hold: for a create, the bound of the controller manager's send;
// for an update, the revision of the version before the one it replaced
// (the one replaced, if it was the first), or, the replaced version being
// the creation, the creation's bound.
func (c *RolloutBounds) lowerBound(key string, before []rsVersion, created bool) (int64, bool) {
	if created {
		lo, ok := c.cms.createBound(key)
		if ok {
			c.lower[key] = lo
		}
		return lo, ok
	}
	n := len(before)
	if n >= 2 && !before[n-2].gone && before[n-2].uid == before[n-1].uid {
		return before[n-2].rev, true
	}
	if lo, ok := c.lower[key]; ok {
		return lo, true
	}
	return before[n-1].rev, true
}

// bounds returns the committed versions of Deployment uid up to rev whose
// spec.replicas the desired-replicas annotation names, or all of them if
// none does.
func (c *RolloutBounds) bounds(uid, desired string, rev int64) []depVersion {
	var all, named []depVersion
	want, ok := annotationInt(desired)
	for _, v := range c.deps[uid] {
		if v.rev > rev {
			break
		}
		all = append(all, v)
		if ok && v.replicas == want {
			named = append(named, v)
		}
	}
	if len(named) > 0 {
		return named
	}
	return all
}

// judgeSurge judges a scale-up of key from old to v.replicas.
func (c *RolloutBounds) judgeSurge(e *sim.Event, key string, v rsVersion, old int32, lo int64, created bool) {
	if created {
		c.creates++
	} else {
		c.ups++
	}
	versions := c.bounds(v.owner, v.desired, v.rev)
	if len(versions) == 0 {
		return
	}
	limit, spec := int32(-1), depVersion{}
	for _, d := range versions {
		if d.replicas+d.surge > limit {
			limit, spec = d.replicas+d.surge, d
		}
	}
	total := v.replicas
	var parts []string
	for _, k := range c.ofDep[v.owner] {
		if k == key {
			continue
		}
		least := int32(-1)
		rsWindow(c.rs[k], v.owner, lo, v.rev, func(y *rsVersion) {
			n := int32(0)
			if y != nil {
				n = y.replicas
			}
			if least < 0 || n < least {
				least = n
			}
		})
		if least > 0 {
			total += least
			parts = append(parts, fmt.Sprintf("%s %d", k, least))
		}
	}
	if total > limit {
		verb := fmt.Sprintf("scaled up from %d to %d", old, v.replicas)
		if created {
			verb = fmt.Sprintf("created with %d", v.replicas)
		}
		c.rec.Add(e, "replicaset %s %s at revision %d: its Deployment's ReplicaSets then ask for at least %d pods (with %s, in any view since revision %d), above spec.replicas %d + maxSurge %d",
			key, verb, v.rev, total, strings.Join(parts, ", "), lo, spec.replicas, spec.surge)
	}
}

// judgeAvailability judges a scale-down of key from prev to v.
func (c *RolloutBounds) judgeAvailability(e *sim.Event, key string, v, prev rsVersion, lo int64) {
	versions := c.bounds(v.owner, v.desired, v.rev)
	if len(versions) == 0 {
		return
	}
	minAvailable, spec := int32(-1), depVersion{}
	for _, d := range versions {
		if !d.rolling {
			return // Recreate scales every old ReplicaSet to 0 at once
		}
		if m := d.replicas - d.unavailable; minAvailable < 0 || m < minAvailable {
			minAvailable, spec = m, d
		}
	}
	c.downs++
	removed := min(prev.replicas, prev.avail) - v.replicas
	if removed <= 0 {
		return // only replicas that were not available
	}
	available := prev.avail
	for _, k := range c.ofDep[v.owner] {
		if k == key {
			continue
		}
		most := int32(0)
		rsWindow(c.rs[k], v.owner, lo, v.rev, func(y *rsVersion) {
			if y != nil {
				most = max(most, y.avail)
			}
		})
		available += most
	}
	if removed > available-minAvailable {
		c.rec.Add(e, "replicaset %s scaled down from %d to %d at revision %d, removing %d available replica(s): its Deployment had at most %d available (in any view since revision %d), and spec.replicas %d - maxUnavailable %d must stay available",
			key, prev.replicas, v.replicas, v.rev, removed, available, lo, spec.replicas, spec.unavailable)
	}
}

// Finish implements Check.
func (c *RolloutBounds) Finish() Result {
	detail := fmt.Sprintf("%d ReplicaSet creation(s), %d scale-up(s) within replicas+maxSurge, %d scale-down(s) keeping replicas-maxUnavailable available",
		c.creates, c.ups, c.downs)
	if c.blind > 0 {
		detail += fmt.Sprintf(" (%d creation(s) no controller manager was seen sending, not judged)", c.blind)
	}
	return c.rec.Result(c.Name(), detail)
}

var _ Check = (*RolloutBounds)(nil)
