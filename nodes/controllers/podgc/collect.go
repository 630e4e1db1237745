package podgc

import (
	"sort"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// listPods returns the informer's pods.
func (c *Controller) listPods() []*model.Pod {
	objs := c.ctx.Pods.GetStore().List()
	pods := make([]*model.Pod, 0, len(objs))
	for _, obj := range objs {
		pods = append(pods, obj.(*model.Pod))
	}
	return pods
}

// isTerminated is the real isPodTerminated: any phase but Pending, Running
// and Unknown.
func isTerminated(pod *model.Pod) bool {
	switch pod.Status.Phase {
	case model.PodPending, model.PodRunning, model.PodUnknown:
		return false
	}
	return true
}

// isEvicted is k8s.io/kubectl's eviction.PodIsEvicted as the real sort uses
// it: Failed with reason "Evicted".
func isEvicted(pod *model.Pod) bool {
	return pod.Status.Phase == model.PodFailed && pod.Status.Reason == "Evicted"
}

// sortForDeletion sorts pods as the real byEvictionAndCreationTimestamp:
// evicted pods first, then by creation timestamp, then by name.
func sortForDeletion(pods []*model.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if ea, eb := isEvicted(a), isEvicted(b); ea != eb {
			return ea
		}
		if a.CreationTimestamp != b.CreationTimestamp {
			return a.CreationTimestamp < b.CreationTimestamp
		}
		return a.Name < b.Name
	})
}

// gcTerminated deletes the terminated pods beyond the threshold, in
// sortForDeletion order (pkg/controller/podgc/gc_controller.go,
// gcTerminated).
func (c *Controller) gcTerminated(pods []*model.Pod) {
	var terminated []*model.Pod
	for _, pod := range pods {
		if isTerminated(pod) {
			terminated = append(terminated, pod)
		}
	}
	n := len(terminated) - c.cfg.TerminatedPodThreshold
	if n <= 0 {
		return
	}
	sortForDeletion(terminated)
	for _, pod := range terminated[:n] {
		c.deletePod(pod, nil, spoketrace.PodGCTerminated)
	}
}

// gcTerminating force-deletes pods being deleted whose node is not Ready
// and carries the out-of-service taint; a pod whose node the informer does
// not have is skipped (gc_controller.go, gcTerminating). The
// pod-gc-ignores-out-of-service ablation skips the taint.
func (c *Controller) gcTerminating(pods []*model.Pod) {
	var doomed []*model.Pod
	for _, pod := range pods {
		if pod.DeletionTimestamp == nil {
			continue
		}
		obj, ok := c.ctx.Nodes.GetStore().GetByKey(pod.Spec.NodeName)
		if !ok {
			continue
		}
		node := obj.(*model.Node)
		outOfService := hasTaintKey(node, TaintNodeOutOfService) || c.cfg.Ablations.Has(ablation.PodGCIgnoresOutOfService)
		if !model.IsNodeReady(node) && outOfService {
			doomed = append(doomed, pod)
		}
	}
	sortForDeletion(doomed)
	for _, pod := range doomed {
		c.deletePod(pod, nil, spoketrace.PodGCTerminating)
	}
}

// gcUnscheduledTerminating force-deletes pods being deleted that were never
// bound to a node (gc_controller.go, gcUnscheduledTerminating).
func (c *Controller) gcUnscheduledTerminating(pods []*model.Pod) {
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil && pod.Spec.NodeName == "" {
			c.deletePod(pod, nil, spoketrace.PodGCUnscheduledTerminating)
		}
	}
}

func hasTaintKey(node *model.Node, key string) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}
