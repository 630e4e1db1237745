package checks

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The annotations the Deployment controller writes on every ReplicaSet it
// scales (k8s.io/kubernetes pkg/controller/deployment/util,
// DesiredReplicasAnnotation and MaxReplicasAnnotation): the Deployment's
// spec.replicas, and replicas + maxSurge, as it saw them.
const (
	desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
)

// rsVersion is one committed version of a ReplicaSet, as rollout-bounds
// reads it.
type rsVersion struct {
	rev      int64
	gone     bool   // deleted at rev
	uid      string // the ReplicaSet's UID
	owner    string // its controller's UID if that is a Deployment, else ""
	replicas int32  // spec.replicas (defaulted)
	avail    int32  // status.availableReplicas
	desired  string // the desired-replicas annotation ("" for none)
}

// depVersion is one committed version of a Deployment's spec.
type depVersion struct {
	rev         int64
	replicas    int32
	rolling     bool
	surge       int32 // resolved maxSurge: 0 unless RollingUpdate
	unavailable int32 // resolved maxUnavailable: 0 unless RollingUpdate with replicas
}

// decodeRSVersion reads a committed ReplicaSet.
func decodeRSVersion(rev int64, value string) (rsVersion, bool) {
	obj, err := model.Decode([]byte(value))
	if err != nil {
		return rsVersion{}, false
	}
	rs, ok := obj.(*model.ReplicaSet)
	if !ok {
		return rsVersion{}, false
	}
	v := rsVersion{rev: rev, uid: string(rs.UID), replicas: model.Deref(rs.Spec.Replicas, model.DefaultReplicas),
		avail: rs.Status.AvailableReplicas, desired: rs.Annotations[desiredReplicasAnnotation]}
	if ref := model.GetControllerOf(rs); ref != nil && ref.Kind == model.KindDeployment {
		v.owner = string(ref.UID)
	}
	return v, true
}

// decodeDepVersion reads a committed Deployment: its UID and the bounds of
// its spec, resolved as the controller resolves them (MaxSurge,
// MaxUnavailable and ResolveFenceposts of deployment/util).
func decodeDepVersion(rev int64, value string) (string, depVersion, bool) {
	obj, err := model.Decode([]byte(value))
	if err != nil {
		return "", depVersion{}, false
	}
	d, ok := obj.(*model.Deployment)
	if !ok {
		return "", depVersion{}, false
	}
	v := depVersion{rev: rev, replicas: model.Deref(d.Spec.Replicas, model.DefaultReplicas),
		rolling: d.Spec.Strategy.Type != model.RecreateDeploymentStrategyType}
	if v.rolling {
		ru := d.Spec.Strategy.RollingUpdate
		if ru == nil {
			ru = &model.RollingUpdateDeployment{}
		}
		s, u, _ := model.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, v.replicas)
		v.surge = s
		if v.replicas > 0 {
			v.unavailable = min(u, v.replicas)
		}
	}
	return string(d.UID), v, true
}

// rsAt returns the version of a ReplicaSet's history current at revision
// rev (the last at or before it), and false if there is none.
func rsAt(l []rsVersion, rev int64) (rsVersion, bool) {
	i := sort.Search(len(l), func(i int) bool { return l[i].rev > rev }) - 1
	if i < 0 {
		return rsVersion{}, false
	}
	return l[i], true
}

// rsWindow calls f with each state of a ReplicaSet's history that a view
// taken at a revision in [lo, hi] can hold: the version current at lo
// (none if it did not exist then) and every version committed after lo up
// to hi. A state in which the ReplicaSet does not exist, or is not
// controlled by owner, is passed as nil.
func rsWindow(l []rsVersion, owner string, lo, hi int64, f func(v *rsVersion)) {
	of := func(v rsVersion, ok bool) {
		if !ok || v.gone || v.owner != owner {
			f(nil)
			return
		}
		f(&v)
	}
	of(rsAt(l, lo))
	for i := sort.Search(len(l), func(i int) bool { return l[i].rev > lo }); i < len(l) && l[i].rev <= hi; i++ {
		of(l[i], true)
	}
}

// cmView follows what one controller-manager host's ReplicaSet informer
// has seen, for the lower bound of the view a Deployment sync of its
// acted on.
type cmView struct {
	// pos is the highest revision of a ReplicaSet the informer has shown
	// (an event or a relist): a watch delivers a resource's events in
	// revision order and a relist is one snapshot, so the informer holds
	// every ReplicaSet as of pos at least.
	pos int64
	// start is pos at the process's first relist after it began leading.
	start      int64
	fresh      bool
	identity   string
	deployment map[string][]int64 // Deployment key -> pos at the controller's last two writes about it
	creates    map[string][]int64 // ReplicaSet key -> lower bounds of the creates sent
}

// controllerManagerHosts follows the controller managers' informers and
// writes: Leading, Relist and InformerEvent of replicasets, LeaderWrite.
type controllerManagerHosts struct {
	hosts map[sim.HostID]*cmView
}

func (m *controllerManagerHosts) host(h sim.HostID) *cmView {
	v := m.hosts[h]
	if v == nil {
		v = &cmView{deployment: map[string][]int64{}, creates: map[string][]int64{}}
		m.hosts[h] = v
	}
	return v
}

// observe follows one event.
func (m *controllerManagerHosts) observe(e *sim.Event) {
	switch d := e.Data.(type) {
	case *spoketrace.Leading:
		if d.Component == controllerManagerComponent && d.Leading {
			v := m.host(e.Host)
			v.identity, v.fresh = d.Identity, true
			clear(v.deployment)
		}
	case *apitrace.Relist:
		if v := m.hosts[e.Host]; v != nil && d.Resource == model.ResourceReplicaSetsName && d.Informer == v.identity+"/"+d.Resource {
			if rv, ok := parseRV(d.RV); ok {
				v.pos = max(v.pos, rv)
				if v.fresh {
					v.start, v.fresh = rv, false
				}
			}
		}
	case *apitrace.InformerEvent:
		if v := m.hosts[e.Host]; v != nil && d.Resource == model.ResourceReplicaSetsName && d.Informer == v.identity+"/"+d.Resource {
			if rv, ok := parseRV(d.RV); ok {
				v.pos = max(v.pos, rv)
			}
		}
	case *spoketrace.LeaderWrite:
		if d.Component == controllerManagerComponent {
			m.write(m.host(e.Host), d)
		}
	}
}

// write follows a controller manager's write that the Deployment
// controller may have sent: an update of a Deployment's status, or a
// create, update or delete of a ReplicaSet (a Deployment's are named
// "<deployment>-<pod-template-hash>"; the ReplicaSet controller writes
// their status only, with update-status).
//
// A sync of a Deployment starts after the previous one ended, so after the
// previous one's writes were sent; and before it creates a ReplicaSet it
// makes at most one call (the Progressing condition of a Deployment
// paused or resumed: checkPausedConditions). So the view a create was
// decided on holds the ReplicaSets as of the informer's position at the
// controller's second-to-last write about the Deployment before it, or
// else at the process's first list.
func (m *controllerManagerHosts) write(v *cmView, d *spoketrace.LeaderWrite) {
	var dep string
	switch {
	case d.Resource == model.ResourceDeploymentsName:
		dep = d.Key
	case d.Resource == model.ResourceReplicaSetsName && d.Verb != "update-status":
		i := strings.LastIndexByte(d.Key, '-')
		if i < 0 {
			return
		}
		dep = d.Key[:i]
	default:
		return
	}
	hist := v.deployment[dep]
	if d.Resource == model.ResourceReplicaSetsName && d.Verb == "create" {
		lo := v.start
		if n := len(hist); n >= 2 {
			lo = hist[n-2]
		}
		v.creates[d.Key] = append(v.creates[d.Key], lo)
	}
	if len(hist) == 2 {
		hist = hist[1:]
	}
	v.deployment[dep] = append(hist, v.pos)
}

// createBound returns the lowest bound of the views that the creates of
// ReplicaSet key sent so far were decided on, and forgets them; false when
// no controller manager sent one.
func (m *controllerManagerHosts) createBound(key string) (int64, bool) {
	lo, found := int64(0), false
	for _, h := range sim.SortedKeys(m.hosts) {
		v := m.hosts[h]
		for _, b := range v.creates[key] {
			if !found || b < lo {
				lo, found = b, true
			}
		}
		delete(v.creates, key)
	}
	return lo, found
}

// annotationInt parses a replicas annotation.
func annotationInt(s string) (int32, bool) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err == nil
}
