package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// taintEvictionSlack absorbs the whole seconds of the times the taint
// eviction controller computes with (metav1.Time).
const taintEvictionSlack = time.Second

// forever is a toleration without tolerationSeconds: the pod stays.
const forever = time.Duration(-1)

// judgeTaintEviction judges a deletion by the taint eviction controller
// (ControllerDeletes' doc): the pod must have been evictable by some view
// of its node committed within NodeLag before the deletion was sent.
func (c *ControllerDeletes) judgeTaintEviction(e *sim.Event, d *spoketrace.ControllerDelete, s cdSend) {
	what := fmt.Sprintf("the taint eviction controller deleted pod %s", d.Key)
	if !s.podOK || s.pod.uid != d.UID {
		c.rec.Add(e, "%s, which was not committed when the deletion was sent", what)
		return
	}
	p := s.pod
	if p.node == "" {
		c.rec.Add(e, "%s, which was bound to no node", what)
		return
	}
	tainted, best := false, ""
	vs := c.nodes[p.node]
	var start sim.Time
	need := forever
	for i, v := range vs {
		if v.at > s.at {
			break
		}
		if !v.exists || len(v.noExecute) == 0 {
			start, need = 0, forever
			continue
		}
		if start == 0 {
			start = v.at
		}
		need = shorterToleration(need, tolerationOf(p.tolerations, v.noExecute))
		if next := i+1 < len(vs) && vs[i+1].at <= s.at; next && s.at.Sub(vs[i+1].at) > c.opts.NodeLag {
			continue // replaced before the window: not a view the controller can have had
		}
		tainted = true
		if need == forever {
			best = fmt.Sprintf(", which tolerates its node %s's NoExecute taints (since %v) for ever", p.node, start)
			continue
		}
		waited, ok := c.clocks.elapsed(e.Host, start, s.at)
		if !ok || waited >= need-taintEvictionSlack {
			return // a view that allows it
		}
		best = fmt.Sprintf(" %.3f s after its node %s's NoExecute taints began (at %v), which it tolerates for %v", waited.Seconds(), p.node, start, need)
	}
	if !tainted {
		c.rec.Add(e, "%s, whose node %s had no NoExecute taint at any commit within %v before the deletion", what, p.node, c.opts.NodeLag)
		return
	}
	c.rec.Add(e, "%s%s", what, best)
}

// tolerationOf is how long a pod with tolerations stays on a node with
// taints (all NoExecute) before the taint eviction controller deletes it:
// 0 if one is not tolerated, else the shortest tolerationSeconds of the
// first toleration matching each taint (0 for one <= 0), forever if none
// sets it.
func tolerationOf(tolerations []model.Toleration, taints []model.Taint) time.Duration {
	out := forever
	for i := range taints {
		matched := false
		for j := range tolerations {
			t := &tolerations[j]
			if !t.ToleratesTaint(&taints[i]) {
				continue
			}
			matched = true
			if t.TolerationSeconds != nil {
				out = shorterToleration(out, time.Duration(max(*t.TolerationSeconds, 0))*time.Second)
			}
			break
		}
		if !matched {
			return 0
		}
	}
	return out
}

// shorterToleration is the shorter of two stays, forever being the
// longest.
func shorterToleration(a, b time.Duration) time.Duration {
	switch {
	case a == forever:
		return b
	case b == forever:
		return a
	}
	return min(a, b)
}
