package kubelet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// Pod admission, as the real kubelet's HandlePodAdditions: every pod bound
// to the node is admitted before it runs, in creation order
// (sliceutils.PodsByCreationTime), against the pods already admitted and
// still active (filterOutInactivePods), by the predicate admit handler
// (k8s.io/kubernetes pkg/kubelet/lifecycle/predicate.go, Admit), whose
// resource part is the scheduler's NodeResourcesFit: the pods count first,
// then cpu, memory and any other resource requested. A pod that does not
// fit is rejected (rejectPod): its phase becomes Failed with the reason of
// the first shortfall (OutOfpods, OutOfcpu, OutOfmemory) and the message
// "Pod was rejected: Node didn't have enough resource: cpu, requested:
// 1000, used: 1500, capacity: 2000", and it never runs. This is what keeps
// a node from running more than it has when two schedulers (or a stale
// one) bind pods to it at once.
//
// Simplifications: a pod whose containers the runtime already runs (a
// restarted kubelet adopting them) is admitted without a check and counts
// first; the real kubelet admits it again in creation order.

// needsAdmission reports a pod not yet admitted or rejected that is to
// run: not being deleted, not terminal, and not already in the runtime.
func (p *process) needsAdmission(ps *podState) bool {
	return !ps.admitted && !ps.rejected && ps.pod.DeletionTimestamp == nil &&
		!model.IsPodTerminal(ps.pod) && p.rt.sandbox(ps.uid) == nil
}

// admitBatch admits the pods of a sync batch that need it, in creation
// order (then by key), before any of them syncs.
func (p *process) admitBatch(batch []model.UID) {
	var pending []*podState
	for _, uid := range batch {
		ps := p.tracked[uid]
		if ps == nil {
			continue
		}
		if !ps.admitted && !ps.rejected && p.rt.sandbox(uid) != nil {
			ps.admitted = true // adopted: it already runs here
		}
		if p.needsAdmission(ps) {
			pending = append(pending, ps)
		}
	}
	slices.SortStableFunc(pending, func(a, b *podState) int {
		if c := cmp.Compare(a.pod.CreationTimestamp, b.pod.CreationTimestamp); c != 0 {
			return c
		}
		return strings.Compare(model.KeyOf(a.pod).String(), model.KeyOf(b.pod).String())
	})
	for _, ps := range pending {
		p.admit(ps)
	}
}

// admit decides on one pod and traces the decision.
func (p *process) admit(ps *podState) {
	req := model.PodRequests(ps.pod)
	reason, msg := p.fit(req)
	if p.cfg.Ablations.Has(ablation.KubeletNoAdmission) {
		reason, msg = "", ""
	}
	ps.admitted, ps.rejected = reason == "", reason != ""
	if ps.rejected {
		ps.rejection = &model.PodStatus{Phase: model.PodFailed, Reason: reason, Message: "Pod was rejected: " + msg}
	}
	p.h.Emit(&spoketrace.PodAdmit{Node: p.cfg.Node, Pod: model.KeyOf(ps.pod).String(), UID: string(ps.uid),
		CPU: int64(req[model.ResourceCPU]), Memory: int64(req[model.ResourceMemory]), Admitted: ps.admitted, Reason: reason})
}

// fit is the admit handler's resource check of req against allocatable
// minus what the active pods request: "" when it fits, else the reason
// and message of the first shortfall.
func (p *process) fit(req model.ResourceList) (reason, msg string) {
	alloc := p.cfg.Capacity
	used, pods := p.activeRequests()
	short := func(name model.ResourceName, requested, used int64) string {
		return fmt.Sprintf("Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d",
			name, requested, used, int64(alloc[name]))
	}
	if int64(pods)+1 > int64(alloc[model.ResourcePods]) {
		return spoketrace.RejectOutOfPods, short(model.ResourcePods, 1, int64(pods))
	}
	names := []model.ResourceName{model.ResourceCPU, model.ResourceMemory}
	for _, name := range req.Names() {
		if name != model.ResourceCPU && name != model.ResourceMemory && name != model.ResourcePods {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if r := req[name]; r > 0 && r > alloc[name]-used[name] {
			reason := "OutOf" + string(name) // lifecycle.OutOfCPU is "OutOfcpu", and so on
			return reason, short(name, int64(r), int64(used[name]))
		}
	}
	return "", ""
}

// activeRequests sums the requests of the pods that hold the node's
// resources, and counts them: the admitted pods not yet finished (a pod
// being deleted holds them until its containers stopped; a terminal pod
// holds them only while a container still runs), and any pod whose
// containers the runtime runs.
func (p *process) activeRequests() (model.ResourceList, int) {
	used, n := model.ResourceList{}, 0
	counted := map[model.UID]bool{} // looked up, never ranged
	for _, uid := range sim.SortedKeys(p.tracked) {
		ps := p.tracked[uid]
		running := p.rt.sandbox(uid).running()
		if !ps.admitted || (!running && (ps.finalize || model.IsPodTerminal(ps.pod) || ps.terminalStatus())) {
			continue
		}
		used = used.Add(model.PodRequests(ps.pod))
		counted[uid] = true
		n++
	}
	for _, uid := range sim.SortedKeys(p.rt.sandboxes) {
		if sb := p.rt.sandboxes[uid]; !counted[uid] && sb.running() {
			used = used.Add(sb.requests)
			n++
		}
	}
	return used, n
}

// terminalStatus reports whether the kubelet's own status of the pod is
// terminal (Succeeded or Failed).
func (ps *podState) terminalStatus() bool {
	return ps.desired != nil && (ps.desired.Phase == model.PodSucceeded || ps.desired.Phase == model.PodFailed)
}

// running reports whether a container of the sandbox has not exited (nil:
// none).
func (sb *sandbox) running() bool {
	if sb == nil {
		return false
	}
	for _, r := range sb.records {
		if r.cur != nil && r.cur.state != stateExited {
			return true
		}
	}
	return false
}

// syncRejected keeps a rejected pod's status Failed; once it is deleted,
// it is finalized at once (it never ran).
func (p *process) syncRejected(ps *podState) {
	if ps.pod.DeletionTimestamp != nil {
		ps.finalize = true
	}
	var st model.PodStatus
	ps.rejection.DeepCopyInto(&st)
	p.setPodStatus(ps, st)
}
