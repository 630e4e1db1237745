package scheduler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubesim/kubesim/model"
)

// Filter failure reasons, worded as the real plugins word them.
const (
	// reasonUnschedulable: NodeUnschedulable (spec.unschedulable).
	reasonUnschedulable = "node(s) were unschedulable"
	// reasonNotReady: the node's Ready condition is not True (kubesim's
	// stand-in for the not-ready taint, worded as the old CheckNodeCondition
	// predicate).
	reasonNotReady = "node(s) were not ready"
	// reasonTooManyPods: NodeResourcesFit, the pods count is full.
	reasonTooManyPods = "Too many pods"
	// msgNoNodes is ErrNoNodesAvailable.
	msgNoNodes = "no nodes available to schedule pods"
)

// filterNode runs the filter plugins on one node, in the default profile's
// order, and returns why the pod does not fit (nil: it fits). Like the real
// framework it stops at the first plugin that rejects the node;
// NodeResourcesFit reports every resource that is short.
//
//   - NodeUnschedulable: spec.unschedulable, unless the pod tolerates the
//     node.kubernetes.io/unschedulable:NoSchedule taint;
//   - TaintToleration: every NoSchedule and NoExecute taint tolerated;
//   - readiness (kubesim): the Ready condition is True. The real scheduler
//     relies on the not-ready and unreachable NoSchedule taints the node
//     lifecycle controller adds; kubesim also checks the condition, so that
//     a world without that controller does not schedule onto dead nodes;
//   - NodeResourcesFit: the requests fit what the node's pods (bound or
//     assumed) leave of its allocatable, and the pods count does.
func filterNode(pod *model.Pod, req model.ResourceList, n *nodeInfo) []string {
	node := n.node
	if node.Spec.Unschedulable {
		cordon := model.Taint{Key: model.TaintNodeUnschedulable, Effect: model.TaintEffectNoSchedule}
		if !model.TolerationsTolerateTaint(pod.Spec.Tolerations, &cordon) {
			return []string{reasonUnschedulable}
		}
	}
	if t, ok := model.FindMatchingUntoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations, model.DoNotScheduleTaintsFilter); ok {
		return []string{fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)}
	}
	if !model.IsNodeReady(node) {
		return []string{reasonNotReady}
	}
	return fitsRequest(req, n)
}

// fitsRequest is NodeResourcesFit's filter: the pods count first, then, if
// the pod requests anything, cpu, memory and any other resource in name
// order, each against allocatable minus what is already requested.
func fitsRequest(req model.ResourceList, n *nodeInfo) []string {
	alloc := n.node.Status.Allocatable
	var reasons []string
	if int64(n.numPods)+1 > int64(alloc[model.ResourcePods]) {
		reasons = append(reasons, reasonTooManyPods)
	}
	names := []model.ResourceName{model.ResourceCPU, model.ResourceMemory}
	for _, name := range req.Names() {
		if name != model.ResourceCPU && name != model.ResourceMemory && name != model.ResourcePods {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if r := req[name]; r > 0 && r > alloc[name]-n.requested[name] {
			reasons = append(reasons, "Insufficient "+string(name))
		}
	}
	return reasons
}

// fitErrorMessage is FitError.Error without preemption: "0/N nodes are
// available: " and the count of each reason, sorted, e.g. "0/3 nodes are
// available: 1 Insufficient cpu, 2 node(s) had untolerated taint
// {node.kubernetes.io/not-ready: }.".
func fitErrorMessage(numNodes int, reasons map[string]int) string {
	parts := make([]string, 0, len(reasons))
	// determinism: collection only; sorted below.
	for r, n := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(parts)
	return fmt.Sprintf("0/%d nodes are available: %s.", numNodes, strings.Join(parts, ", "))
}
