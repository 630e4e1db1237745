package checks

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// rsExpectationsTimeout is how long a ReplicaSet controller's expectations
// wait to be observed before they expire and the ReplicaSet syncs anyway
// (k8s.io/kubernetes pkg/controller/controller_utils.go,
// ExpectationsTimeout: 5 min).
const rsExpectationsTimeout = 5 * time.Minute

// controllerManagerComponent names kube-controller-manager in Leading
// events.
const controllerManagerComponent = "kube-controller-manager"

// rsExpectations follows, from the trace, the deletion expectations a
// ReplicaSet controller sets and whether it can observe them. The real
// controller (pkg/controller/replicaset/replica_set.go) expects the
// deletion of each pod it deletes, and does nothing for a ReplicaSet until
// its informer shows each deletion or five minutes have passed. Its
// deletePod handler counts a deletion for the ReplicaSet the deleted pod's
// last known state names as controller; a tombstone from a relist carries
// the informer's last known state, which, if the informer missed the
// adoption that preceded the deletion, names no controller. Such a
// deletion is never observed, and the ReplicaSet waits out the timeout.
//
// It reads pods' committed controller references from etcd's Apply
// events, the controller manager's pod informer events (the versions it
// knew), its "replicaset" ControllerDelete events, and its Leading events
// (a new process starts with no expectations).
type rsExpectations struct {
	revs appliedRevs
	// ctrl is each pod key's committed controller UID, as it changed:
	// ascending revisions.
	ctrl map[string][]ctrlAt
	// known is the revision of each pod key an informer host last knew.
	known map[sim.HostID]map[string]int64
	// pending are the deletions a host's controller awaits, by pod key.
	pending map[sim.HostID]map[string]pendingDelete
}

// ctrlAt is a pod's controller from a revision on, and whether it is
// being deleted (deletionTimestamp set).
type ctrlAt struct {
	rev      int64
	uid      string
	deleting bool
}

// pendingDelete is a deletion a ReplicaSet controller expects to observe.
type pendingDelete struct {
	owner string
	at    sim.Time
}

func newRSExpectations() *rsExpectations {
	return &rsExpectations{ctrl: map[string][]ctrlAt{}, known: map[sim.HostID]map[string]int64{},
		pending: map[sim.HostID]map[string]pendingDelete{}}
}

// podsPrefix is the etcd prefix of pods.
const podsPrefix = registryRoot + "pods/"

// observe consumes one event.
func (x *rsExpectations) observe(e *sim.Event) {
	switch d := e.Data.(type) {
	case *etcdtrace.Apply:
		x.apply(d)
	case *apitrace.InformerEvent:
		if d.Resource == "pods" {
			x.informer(e.Host, d)
		}
	case *spoketrace.ControllerDelete:
		if d.Controller == spoketrace.ControllerReplicaSet && d.Resource == "pods" && d.Owner != "" {
			if x.pending[e.Host] == nil {
				x.pending[e.Host] = map[string]pendingDelete{}
			}
			x.pending[e.Host][d.Key] = pendingDelete{owner: d.Owner, at: e.At}
		}
	case *spoketrace.Leading:
		if d.Component == controllerManagerComponent && d.Leading {
			delete(x.pending, e.Host) // a new process: no expectations yet
		}
	}
}

// apply records the controller references committed at a new revision.
func (x *rsExpectations) apply(d *etcdtrace.Apply) {
	if !x.revs.fresh(d) {
		return
	}
	for i := range d.Changes {
		ch := &d.Changes[i]
		key, ok := strings.CutPrefix(ch.Key, podsPrefix)
		if !ok || ch.Type != etcdtrace.ChangePut {
			continue
		}
		c := ctrlAt{rev: ch.ModRev, uid: controllerUID(ch.Value), deleting: strings.Contains(ch.Value, `"deletionTimestamp":`)}
		l := x.ctrl[key]
		if n := len(l); n == 0 || l[n-1].uid != c.uid || l[n-1].deleting != c.deleting {
			x.ctrl[key] = append(l, c)
		}
	}
}

// controllerUID finds the UID of the controller reference in a stored
// object's JSON, "" if it has none. The encoding writes an owner
// reference's uid just before its controller flag.
func controllerUID(value string) string {
	i := strings.Index(value, `","controller":true`)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(value[:i], `"uid":"`)
	if j < 0 {
		return ""
	}
	return value[j+len(`"uid":"`) : i]
}

// informer follows what a host's pod informer knows, and judges the
// deletions its controller awaits when the informer reports them: the
// controller observes one when the informer shows the pod deleted, or
// being deleted (an add or update of a version with a deletionTimestamp),
// in a version that names the ReplicaSet as its controller.
func (x *rsExpectations) informer(h sim.HostID, d *apitrace.InformerEvent) {
	rv, err := strconv.ParseInt(d.RV, 10, 64)
	if err != nil {
		return
	}
	p, waits := x.pending[h][d.Key]
	if d.Type == "delete" {
		if waits && x.versionAt(d.Key, x.known[h][d.Key]).uid == p.owner {
			delete(x.pending[h], d.Key) // observed for its ReplicaSet
		}
		delete(x.known[h], d.Key)
		return
	}
	if x.known[h] == nil {
		x.known[h] = map[string]int64{}
	}
	x.known[h][d.Key] = rv
	if v := x.versionAt(d.Key, rv); waits && v.deleting && v.uid == p.owner {
		delete(x.pending[h], d.Key)
	}
}

// versionAt is key's controller and deletion state at revision rev.
func (x *rsExpectations) versionAt(key string, rev int64) ctrlAt {
	l := x.ctrl[key]
	i := sort.Search(len(l), func(i int) bool { return l[i].rev > rev }) - 1
	if i < 0 {
		return ctrlAt{}
	}
	return l[i]
}

// waiting reports whether the ReplicaSet owner may still be waiting, at
// t, for a deletion its controller cannot observe: one it expected less
// than rsExpectationsTimeout before t and has not seen for it.
func (x *rsExpectations) waiting(owner string, t sim.Time) bool {
	for _, h := range sim.SortedKeys(x.pending) {
		for _, k := range sim.SortedKeys(x.pending[h]) {
			if p := x.pending[h][k]; p.owner == owner && t.Sub(p.at) < rsExpectationsTimeout {
				return true
			}
		}
	}
	return false
}
