package scheduler

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// maxNodeScore is framework.MaxNodeScore.
const maxNodeScore = 100

// leastAllocatedScore is NodeResourcesFit's default scoring strategy,
// LeastAllocated, with cpu and memory weighted 1 each: for each resource
// (allocatable - requested) * 100 / allocatable, where requested counts the
// node's pods and this one with the non-zero defaults, then the weighted
// average. A resource the node does not have, or that would be
// overcommitted, scores 0.
func leastAllocatedScore(pod *model.Pod, n *nodeInfo) int64 {
	cpu, mem := nonZeroRequests(pod)
	alloc := n.node.Status.Allocatable
	score := leastRequested(n.nonZeroCPU+cpu, int64(alloc[model.ResourceCPU])) +
		leastRequested(n.nonZeroMemory+mem, int64(alloc[model.ResourceMemory]))
	return score / 2
}

// leastRequested is leastRequestedScore for one resource.
func leastRequested(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * maxNodeScore / capacity
}

// selectHost picks the highest scored node, breaking ties uniformly at
// random (the real selectHost samples the best by reservoir sampling).
// nodes must not be empty.
func selectHost(pod *model.Pod, nodes []*nodeInfo, rnd *sim.Stream) string {
	var best []string
	top := int64(-1)
	for _, n := range nodes {
		s := leastAllocatedScore(pod, n)
		switch {
		case s > top:
			top, best = s, append(best[:0], n.name)
		case s == top:
			best = append(best, n.name)
		}
	}
	if len(best) == 1 {
		return best[0]
	}
	return best[rnd.IntN(len(best))]
}
