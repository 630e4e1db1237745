package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Ownership checks who owns what, as the API servers committed it
// (apitrace.Owners: every create, deletion and change of ownerReferences
// or labels of a pod, ReplicaSet or Deployment, with the owners before and
// after) and as the controllers report their deletions
// (spoketrace.ControllerDelete). It fails when:
//   - an object has two controller owners (the API's validation refuses
//     that: ValidateOwnerReferences);
//   - one write replaces an object's controller by another: a controller
//     adopts only objects without one (ControllerRefManager.ClaimObject);
//   - an object gets a controller whose selector does not match its
//     labels (at creation or adoption);
//   - a ReplicaSet deletes a pod it is not the controller of (at the
//     pod's deletion);
//   - an owner reference is dropped, or the garbage collector deletes a
//     dependent, while the owner still exists: unless a controller released
//     an object its selector no longer matches, an owner's reference goes
//     only when the owner is gone. "Still exists" is judged on the
//     cluster's state at the end of the run (spoketrace.ClusterState): an
//     owner that exists then existed all along, since a UID never comes
//     back.
//
// And on that final state, once the cluster settled, it fails when an
// object that is not being deleted (as its last commit left it):
//   - has a controller whose selector no longer matches it (a controller
//     releases what it no longer selects);
//   - has no controller while a ReplicaSet (for a pod) or a Deployment
//     (for a ReplicaSet), not being deleted, selects it (a controller
//     adopts the orphans it selects);
//   - references a ReplicaSet or Deployment owner that is gone (the
//     garbage collector deletes the dependents of a deleted owner).
type Ownership struct {
	objs    map[string]*ownObj // by UID
	claims  []goneClaim
	alive   map[string]bool // UIDs in the last ClusterState -> not being deleted
	final   *spoketrace.ClusterState
	finalAt probeTouch
	state   bool // a ClusterState came
	rec     earliestOffenses
	adopted int
	release int
	rsDel   int
	gcDel   int
}

// ownObj is an object as its last commit left it.
type ownObj struct {
	resource, key string
	labels        map[string]string
	selector      *model.Selector // ReplicaSets and Deployments
	selText       string
	owners        []ownRef
	// atDelete are its owners at the commit that first deleted it (a
	// mark or a removal): what a deleter removed.
	atDelete []ownRef
	deleted  bool
}

// ownRef is one ownerReference.
type ownRef struct {
	kind, uid  string
	controller bool
}

// goneClaim is an owner some event says is gone.
type goneClaim struct {
	owner string
	at    sim.Time
	seq   uint64
	what  string
}

// NewOwnership returns the "ownership" check.
func NewOwnership() *Ownership {
	return &Ownership{objs: map[string]*ownObj{}, alive: map[string]bool{}}
}

// Name implements Check.
func (c *Ownership) Name() string { return "ownership" }

// parseOwners reads apitrace.Owners' owner list.
func parseOwners(s string) []ownRef {
	if s == "" {
		return nil
	}
	var out []ownRef
	for _, part := range strings.Split(s, ",") {
		r := ownRef{}
		part, r.controller = strings.CutSuffix(part, "*")
		r.kind, r.uid, _ = strings.Cut(part, "/")
		out = append(out, r)
	}
	return out
}

// controllerOf returns the UID of the (first) controller, and how many
// references are controllers.
func controllerOf(refs []ownRef) (string, int) {
	uid, n := "", 0
	for _, r := range refs {
		if r.controller {
			if n == 0 {
				uid = r.uid
			}
			n++
		}
	}
	return uid, n
}

// parseLabels reads "k=v,..." (the labels' selector form).
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	if s == "" {
		return out
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// Observe implements Check.
func (c *Ownership) Observe(e *sim.Event) {
	switch d := e.NodeData().(type) {
	case *apitrace.Owners:
		c.observeCommit(e, d)
	case *spoketrace.ControllerDelete:
		c.observeDelete(e, d)
	case *spoketrace.ClusterState:
		c.state = true
		c.final, c.finalAt = copyClusterState(d), probeTouch{e.At, e.Seq}
		clear(c.alive)
		for _, p := range d.Pods {
			c.alive[p.UID] = !p.Deleting
		}
		for _, rs := range d.ReplicaSets {
			c.alive[rs.UID] = !rs.Deleting
		}
		for _, dp := range d.Deployments {
			c.alive[dp.UID] = true
		}
	}
}

func (c *Ownership) observeCommit(e *sim.Event, d *apitrace.Owners) {
	what := fmt.Sprintf("%s %s", singular(d.Resource), d.Key)
	before, after := parseOwners(d.OldOwners), parseOwners(d.Owners)
	oldCtl, _ := controllerOf(before)
	newCtl, n := controllerOf(after)
	labels := parseLabels(d.Labels)
	if n > 1 {
		c.rec.add(e.At, e.Seq, "%s has %d controller owners (%s), written by %s", what, n, d.Owners, d.Verb)
	}
	switch {
	case oldCtl != "" && newCtl != "" && oldCtl != newCtl:
		c.rec.add(e.At, e.Seq, "%s: its controller %s was replaced by %s in one write (%s): a controller adopts only what has none",
			what, c.describe(oldCtl), c.describe(newCtl), d.Verb)
	case oldCtl == "" && newCtl != "":
		if d.Verb != "create" {
			c.adopted++
		}
		if o := c.objs[newCtl]; o != nil && o.selector != nil && !o.selector.Matches(labels) {
			c.rec.add(e.At, e.Seq, "%s (labels %q) got controller %s, whose selector %q does not match it (%s)",
				what, d.Labels, c.describe(newCtl), o.selText, d.Verb)
		}
	}
	for _, r := range before {
		if containsRef(after, r.uid) {
			continue
		}
		c.release++
		if r.controller {
			if o := c.objs[r.uid]; o == nil || o.selector == nil || !o.selector.Matches(labels) {
				continue // released by a controller it no longer matches (or unknown)
			}
		}
		c.claims = append(c.claims, goneClaim{r.uid, e.At, e.Seq,
			fmt.Sprintf("%s lost its reference to owner %s (%s)", what, c.describe(r.uid), d.Verb)})
	}
	o := c.objs[d.UID]
	if o == nil {
		o = &ownObj{resource: d.Resource, key: d.Key}
		c.objs[d.UID] = o
		if d.Selector != "" {
			if sel, err := model.ParseSelector(d.Selector); err == nil {
				o.selector, o.selText = &sel, d.Selector
			}
		}
	}
	o.labels, o.owners = labels, after
	if (d.Deleting || d.Removed) && !o.deleted {
		o.deleted, o.atDelete = true, after
	}
}

// ownersAtDelete are an object's owners when it was deleted, or its last.
func (o *ownObj) ownersAtDelete() []ownRef {
	if o.deleted {
		return o.atDelete
	}
	return o.owners
}

func (c *Ownership) observeDelete(e *sim.Event, d *spoketrace.ControllerDelete) {
	what := fmt.Sprintf("%s %s", singular(d.Resource), d.Key)
	o := c.objs[d.UID]
	switch d.Controller {
	case spoketrace.ControllerReplicaSet:
		c.rsDel++
		if o == nil {
			return
		}
		if ctl, _ := controllerOf(o.ownersAtDelete()); ctl != d.Owner {
			c.rec.add(e.At, e.Seq, "replicaset %s deleted %s, whose controller was %s", c.describe(d.Owner), what, c.describe(ctl))
		}
	case spoketrace.ControllerGarbageCollector:
		c.gcDel++
		var owners []string
		if o != nil {
			for _, r := range o.ownersAtDelete() {
				owners = append(owners, r.uid)
			}
		} else if d.Owner != "" {
			owners = strings.Split(d.Owner, ",")
		}
		for _, uid := range owners {
			c.claims = append(c.claims, goneClaim{uid, e.At, e.Seq,
				fmt.Sprintf("the garbage collector deleted %s, whose owner %s", what, c.describe(uid))})
		}
	}
}

// describe names an object by UID: "replicaset default/web (uid ...)".
func (c *Ownership) describe(uid string) string {
	if uid == "" {
		return "none"
	}
	if o := c.objs[uid]; o != nil {
		return fmt.Sprintf("%s %s (uid %s)", singular(o.resource), o.key, uid)
	}
	return "uid " + uid
}

func containsRef(refs []ownRef, uid string) bool {
	for _, r := range refs {
		if r.uid == uid {
			return true
		}
	}
	return false
}

// singular names a resource's objects: "pod", "replicaset", "deployment".
func singular(resource string) string { return strings.TrimSuffix(resource, "s") }

// Finish implements Check.
func (c *Ownership) Finish() Result {
	for _, cl := range c.claims {
		if _, ok := c.alive[cl.owner]; ok {
			c.rec.add(cl.at, cl.seq, "%s still exists at the end of the run", cl.what)
		}
	}
	c.judgeSettled()
	judged := "owners claimed gone are gone at the end"
	if !c.state {
		judged = "no cluster state came: owners claimed gone not judged"
	}
	return c.rec.result(c.Name(), fmt.Sprintf("%d object(s); %d adoption(s), %d reference(s) dropped, %d replicaset pod deletion(s), %d garbage collection(s): one controller each, selectors matched, %s",
		len(c.objs), c.adopted, c.release, c.rsDel, c.gcDel, judged))
}

// judgeSettled judges the objects of the final state that are not being
// deleted.
func (c *Ownership) judgeSettled() {
	if c.final == nil {
		return
	}
	var pods, replicaSets []string
	finalOwner := map[string]string{} // looked up, never ranged
	for _, p := range c.final.Pods {
		if !p.Deleting {
			pods = append(pods, p.UID)
			finalOwner[p.UID] = p.Owner
		}
	}
	for _, rs := range c.final.ReplicaSets {
		if !rs.Deleting {
			replicaSets = append(replicaSets, rs.UID)
			finalOwner[rs.UID] = rs.Owner
		}
	}
	var deployments []string
	for _, d := range c.final.Deployments {
		deployments = append(deployments, d.UID)
	}
	c.judgeSettledOf(pods, replicaSets, finalOwner)
	c.judgeSettledOf(replicaSets, deployments, finalOwner)
}

// judgeSettledOf judges dependents against the owners that may control
// them.
func (c *Ownership) judgeSettledOf(dependents, owners []string, finalOwner map[string]string) {
	at := c.finalAt
	for _, uid := range dependents {
		o := c.objs[uid]
		if o == nil {
			continue // its commits were not seen
		}
		ctl, _ := controllerOf(o.owners)
		if ctl != finalOwner[uid] {
			continue // its last commit was not seen (its API server never heard back from etcd)
		}
		what := fmt.Sprintf("%s %s", singular(o.resource), o.key)
		for _, r := range o.owners {
			if _, ok := c.alive[r.uid]; !ok && (r.kind == "ReplicaSet" || r.kind == "Deployment") {
				c.rec.add(at.at, at.seq, "%s still references its owner %s, which is gone: it was never garbage collected", what, c.describe(r.uid))
			}
		}
		if ctl != "" {
			if owner := c.objs[ctl]; c.alive[ctl] && owner != nil && owner.selector != nil && !owner.selector.Matches(o.labels) {
				c.rec.add(at.at, at.seq, "%s (labels %q) is still controlled by %s, whose selector %q no longer matches it: never released",
					what, model.SelectorFromSet(o.labels).String(), c.describe(ctl), owner.selText)
			}
			continue
		}
		for _, ouid := range owners {
			if owner := c.objs[ouid]; c.alive[ouid] && owner != nil && owner.selector != nil && !owner.selector.Empty() && owner.selector.Matches(o.labels) {
				c.rec.add(at.at, at.seq, "%s (labels %q) has no controller, but %s selects it: never adopted",
					what, model.SelectorFromSet(o.labels).String(), c.describe(ouid))
				break
			}
		}
	}
}

var _ Check = (*Ownership)(nil)
