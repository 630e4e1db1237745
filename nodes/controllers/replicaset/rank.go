package replicaset

import (
	"math"
	"sort"
	"strconv"

	"github.com/kubesim/kubesim/model"
)

// PodDeletionCostAnnotation lets users order scale-down: pods with a lower
// cost go first (the PodDeletionCost feature, on by default since 1.22).
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// getPodsToDelete picks the diff pods of active to delete, the first by
// ActivePodsWithRanks order. related are the pods of every ReplicaSet with
// the same controller as this one (its Deployment's), which rank pods on
// crowded nodes first.
func getPodsToDelete(active, related []*model.Pod, diff int, now model.Time) []*model.Pod {
	if diff < len(active) {
		sort.Sort(rankPods(active, related, now))
	}
	return active[:diff]
}

// rankPods is getPodsRankedByRelatedPodsOnSameNode: each pod's rank is how
// many active related pods share its node.
func rankPods(pods, related []*model.Pod, now model.Time) activePodsWithRanks {
	onNode := map[string]int{} // looked up, never ranged
	for _, p := range related {
		if model.IsPodActive(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	ranks := make([]int, len(pods))
	for i, p := range pods {
		ranks[i] = onNode[p.Spec.NodeName]
	}
	return activePodsWithRanks{pods: pods, rank: ranks, now: now}
}

// relatedPods is getIndirectlyRelatedPods: the pods, each once, selected by
// any ReplicaSet with the same controllerRef as rs (none when rs has no
// controller).
func (c *Controller) relatedPods(rs *model.ReplicaSet) []*model.Pod {
	ref := model.GetControllerOf(rs)
	if ref == nil {
		return nil
	}
	seen := map[model.UID]bool{} // looked up, never ranged
	var out []*model.Pod
	for _, obj := range c.ctx.ReplicaSets.Lister().ByNamespace(rs.Namespace).List(model.Everything()) {
		other := obj.(*model.ReplicaSet)
		if r := model.GetControllerOf(other); r == nil || r.UID != ref.UID {
			continue
		}
		sel, err := other.Spec.Selector.AsSelector()
		if err != nil {
			continue
		}
		for _, o := range c.ctx.Pods.Lister().ByNamespace(rs.Namespace).List(sel) {
			p := o.(*model.Pod)
			if !seen[p.UID] {
				seen[p.UID] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// activePodsWithRanks sorts pods by how readily they are deleted, as
// controller.ActivePodsWithRanks (with LogarithmicScaleDown, on by default
// since 1.22).
type activePodsWithRanks struct {
	pods []*model.Pod
	rank []int
	now  model.Time
}

func (s activePodsWithRanks) Len() int { return len(s.pods) }

func (s activePodsWithRanks) Swap(i, j int) {
	s.pods[i], s.pods[j] = s.pods[j], s.pods[i]
	s.rank[i], s.rank[j] = s.rank[j], s.rank[i]
}

var phaseOrdinal = map[model.PodPhase]int{model.PodPending: 0, model.PodUnknown: 1, model.PodRunning: 2}

// Less reports whether pod i goes before pod j:
//  1. unassigned < assigned;
//  2. Pending < Unknown < Running;
//  3. not ready < ready;
//  4. lower pod-deletion-cost < higher;
//  5. more related pods on the node (doubled up) < fewer;
//  6. ready for less time < more (log2 buckets of the time since, then UID);
//  7. more container restarts < fewer;
//  8. newer < older (log2 buckets of the age, then UID).
func (s activePodsWithRanks) Less(i, j int) bool {
	a, b := s.pods[i], s.pods[j]
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if pa, pb := phaseOrdinal[a.Status.Phase], phaseOrdinal[b.Status.Phase]; pa != pb {
		return pa < pb
	}
	if ra, rb := model.IsPodReady(a), model.IsPodReady(b); ra != rb {
		return !ra
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if s.rank[i] != s.rank[j] {
		return s.rank[i] > s.rank[j]
	}
	if model.IsPodReady(a) && model.IsPodReady(b) {
		if ta, tb := readyTime(a), readyTime(b); ta != tb {
			return s.newerFirst(a, b, ta, tb)
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	if ta, tb := a.CreationTimestamp, b.CreationTimestamp; ta != tb {
		return s.newerFirst(a, b, ta, tb)
	}
	return false
}

// newerFirst orders two distinct times, a zero time first, then by
// logarithmic rank of their age at now (ties by UID).
func (s activePodsWithRanks) newerFirst(a, b *model.Pod, ta, tb model.Time) bool {
	if s.now == 0 || ta == 0 || tb == 0 {
		return afterOrZero(ta, tb)
	}
	if d := logRankDiff(ta, tb, s.now); d != 0 {
		return d < 0
	}
	return a.UID < b.UID
}

func afterOrZero(a, b model.Time) bool {
	if a == 0 || b == 0 {
		return a == 0
	}
	return a.After(b)
}

// logRankDiff compares the log2 of the times since a and b.
func logRankDiff(a, b, now model.Time) int64 {
	rank := func(t model.Time) int64 {
		if d := now.Sub(t); d > 0 {
			return int64(math.Log2(float64(d)))
		}
		return -1
	}
	return rank(a) - rank(b)
}

// readyTime is when the pod's Ready condition last became True (0 if not
// ready).
func readyTime(p *model.Pod) model.Time {
	if _, c := model.GetPodCondition(&p.Status, model.PodReady); c != nil && c.Status == model.ConditionTrue {
		return c.LastTransitionTime
	}
	return 0
}

func maxRestarts(p *model.Pod) int32 {
	var n int32
	for _, cs := range p.Status.ContainerStatuses {
		n = max(n, cs.RestartCount)
	}
	return n
}

// deletionCost parses the pod-deletion-cost annotation (0 when absent or
// invalid).
func deletionCost(p *model.Pod) int32 {
	v, ok := p.Annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}
