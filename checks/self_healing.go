package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// controllerManagerUser is the identity whose writes the spoke checks
// attribute to kube-controller-manager.
const controllerManagerUser = "system:kube-controller-manager"

// SelfHealing checks the reconcile chain after a node dies for good (its
// host crashes and never restarts): every owned pod that ran there is
// replaced, and each replacement goes through the chain in order: the
// lost pod is deleted (by the controller manager: the pod garbage
// collector or the taint eviction), the ReplicaSet controller creates a
// replacement, the scheduler binds it, and a kubelet starts it. A node
// whose host restarts before the end is not dead and is not judged.
//
// Measures, in seconds from the death (the latest of each stage over the
// dead node's pods, -1 when it never happened): heal_delete_s,
// heal_create_s, heal_bind_s, heal_start_s.
type SelfHealing struct {
	nodeOf  map[sim.HostID]string
	deaths  map[string]*death // node -> its death
	running map[string]map[string]lostPod
	// After the first death: pod creations by the controller manager (key
	// -> time), bindings (uid -> time), and starts of new pods.
	creates map[string]sim.Time
	binds   map[string]sim.Time
	seen    map[string]bool // uids started before
	starts  []newStart
	rec     Recorder
	first   sim.Time
}

type lostPod struct{ key, owner string }

type death struct {
	at      sim.Time
	seq     uint64
	lost    []lostPod
	deleted map[string]sim.Time // pod key -> deletion admitted
}

type newStart struct {
	at              sim.Time
	key, uid, owner string
}

// NewSelfHealing returns the "self-healing" check.
func NewSelfHealing() *SelfHealing {
	return &SelfHealing{nodeOf: map[sim.HostID]string{}, deaths: map[string]*death{},
		running: map[string]map[string]lostPod{}, creates: map[string]sim.Time{}, binds: map[string]sim.Time{}, seen: map[string]bool{}}
}

// Name implements Check.
func (c *SelfHealing) Name() string { return "self-healing" }

// Observe implements Check.
func (c *SelfHealing) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		node, ok := c.nodeOf[e.Host]
		if !ok {
			return
		}
		switch {
		case sim.FaultKind(e.Name).CrashesHost():
			d := &death{at: e.At, seq: e.Seq, deleted: map[string]sim.Time{}}
			for _, uid := range sim.SortedKeys(c.running[node]) {
				if p := c.running[node][uid]; p.owner != "" {
					d.lost = append(d.lost, p)
				}
			}
			c.running[node] = nil
			c.deaths[node] = d
			if c.first == 0 {
				c.first = e.At
			}
		case e.Name == string(sim.FaultRestart):
			delete(c.deaths, node)
		}
		return
	}
	switch d := e.Data.(type) {
	case *spoketrace.ContainerStart:
		c.nodeOf[e.Host] = d.Node
		if c.running[d.Node] == nil {
			c.running[d.Node] = map[string]lostPod{}
		}
		c.running[d.Node][d.UID] = lostPod{key: d.Pod, owner: d.Owner}
		if c.first != 0 && !c.seen[d.UID] && d.Owner != "" {
			c.starts = append(c.starts, newStart{at: e.At, key: d.Pod, uid: d.UID, owner: d.Owner})
		}
		c.seen[d.UID] = true
	case *spoketrace.ContainerStop:
		delete(c.running[d.Node], d.UID)
	case *spoketrace.Bound:
		if c.first != 0 {
			if _, ok := c.binds[d.UID]; !ok {
				c.binds[d.UID] = e.At
			}
		}
	case *apitrace.Admit:
		if d.Resource != "pods" || d.User != controllerManagerUser || c.first == 0 {
			return
		}
		switch d.Verb {
		case "create":
			if _, ok := c.creates[d.Key]; !ok {
				c.creates[d.Key] = e.At
			}
		case "delete":
			for _, node := range sim.SortedKeys(c.deaths) {
				dd := c.deaths[node]
				for _, p := range dd.lost {
					if _, ok := dd.deleted[p.key]; !ok && p.key == d.Key {
						dd.deleted[p.key] = e.At
					}
				}
			}
		}
	}
}

// Finish implements Check.
func (c *SelfHealing) Finish() Result {
	stage := map[string]sim.Time{}
	latest := func(name string, d *death, t sim.Time) {
		if t-d.at > stage[name] {
			stage[name] = t - d.at
		}
	}
	used := map[string]bool{}
	lost := 0
	for _, node := range sim.SortedKeys(c.deaths) {
		d := c.deaths[node]
		ev := &sim.Event{At: d.at, Seq: d.seq}
		for _, p := range d.lost {
			lost++
			del, ok := d.deleted[p.key]
			if !ok {
				c.rec.Add(ev, "pod %s on dead node %s was never deleted", p.key, node)
				continue
			}
			latest("delete", d, del)
			r, found := c.replacement(p.owner, d.at, used)
			if !found {
				c.rec.Add(ev, "pod %s (owner %s) on dead node %s was never replaced by a running pod", p.key, p.owner, node)
				continue
			}
			created, okC := c.creates[r.key]
			bound, okB := c.binds[r.uid]
			switch {
			case !okC || !okB:
				c.rec.Add(ev, "replacement %s of %s started on a kubelet without a traced create (%v) or binding (%v)", r.key, p.key, okC, okB)
			case !(created <= bound && bound <= r.at):
				c.rec.Add(ev, "replacement %s of %s out of order: created at %v, bound at %v, started at %v", r.key, p.key, created, bound, r.at)
			default:
				latest("create", d, created)
				latest("bind", d, bound)
				latest("start", d, r.at)
			}
		}
	}
	detail := fmt.Sprintf("%d node(s) died for good, %d owned pod(s) lost", len(c.deaths), lost)
	if lost > 0 {
		var parts []string
		for _, s := range []string{"delete", "create", "bind", "start"} {
			parts = append(parts, fmt.Sprintf("%s %.1f s", s, stage[s].Seconds()))
		}
		detail += ", each replaced; the last " + strings.Join(parts, ", ") + " after the death"
	}
	return c.rec.Result(c.Name(), detail)
}

// replacement finds the first new pod of owner started after t that no
// other lost pod has claimed.
func (c *SelfHealing) replacement(owner string, t sim.Time, used map[string]bool) (newStart, bool) {
	for _, s := range c.starts {
		if s.owner == owner && s.at > t && !used[s.uid] {
			used[s.uid] = true
			return s, true
		}
	}
	return newStart{}, false
}

// Measures implements Measurer.
func (c *SelfHealing) Measures() map[string]float64 {
	out := map[string]float64{"heal_delete_s": -1, "heal_create_s": -1, "heal_bind_s": -1, "heal_start_s": -1}
	used := map[string]bool{}
	for _, node := range sim.SortedKeys(c.deaths) {
		d := c.deaths[node]
		for _, p := range d.lost {
			if del, ok := d.deleted[p.key]; ok {
				out["heal_delete_s"] = max(out["heal_delete_s"], (del - d.at).Seconds())
			}
			r, ok := c.replacement(p.owner, d.at, used)
			if !ok {
				continue
			}
			if t, ok := c.creates[r.key]; ok {
				out["heal_create_s"] = max(out["heal_create_s"], (t - d.at).Seconds())
			}
			if t, ok := c.binds[r.uid]; ok {
				out["heal_bind_s"] = max(out["heal_bind_s"], (t - d.at).Seconds())
			}
			out["heal_start_s"] = max(out["heal_start_s"], (r.at - d.at).Seconds())
		}
	}
	return out
}

var (
	_ Check    = (*SelfHealing)(nil)
	_ Measurer = (*SelfHealing)(nil)
)
