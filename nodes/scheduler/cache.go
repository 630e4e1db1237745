package scheduler

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// Requests the scoring counts for a container that requests no cpu or no
// memory, as schedutil.DefaultMilliCPURequest and DefaultMemoryRequest:
// otherwise request-less pods would all pile onto one node.
const (
	defaultMilliCPURequest = 100               // 0.1 core
	defaultMemoryRequest   = 200 * 1024 * 1024 // 200 MiB
)

// nodeInfo is one node as the scheduler cache sees it: the Node (nil while
// only pods name it) and what the pods on it, bound or assumed, request.
type nodeInfo struct {
	name string
	node *model.Node
	// requested sums the pods' requests (the filter's view).
	requested model.ResourceList
	// nonZeroCPU and nonZeroMemory sum them with the scoring defaults.
	nonZeroCPU, nonZeroMemory int64
	numPods                   int
}

func (n *nodeInfo) addPod(pod *model.Pod) {
	n.requested = n.requested.Add(model.PodRequests(pod))
	cpu, mem := nonZeroRequests(pod)
	n.nonZeroCPU += cpu
	n.nonZeroMemory += mem
	n.numPods++
}

func (n *nodeInfo) removePod(pod *model.Pod) {
	n.requested = n.requested.Sub(model.PodRequests(pod))
	cpu, mem := nonZeroRequests(pod)
	n.nonZeroCPU -= cpu
	n.nonZeroMemory -= mem
	n.numPods--
}

// nonZeroRequests sums the pod's cpu and memory requests, a container that
// does not request one counting the default, as GetNonzeroRequests.
func nonZeroRequests(pod *model.Pod) (cpu, mem int64) {
	for i := range pod.Spec.Containers {
		req := pod.Spec.Containers[i].Resources.Requests
		if q, ok := req[model.ResourceCPU]; ok {
			cpu += int64(q)
		} else {
			cpu += defaultMilliCPURequest
		}
		if q, ok := req[model.ResourceMemory]; ok {
			mem += int64(q)
		} else {
			mem += defaultMemoryRequest
		}
	}
	return cpu, mem
}

// podState is a pod in the cache: bound as the informer shows it, or
// assumed by this scheduler.
type podState struct {
	pod             *model.Pod // spec.nodeName is the node it counts on
	assumed         bool
	bindingFinished bool
	// expires, when bindingFinished and a TTL is set, is when an assumption
	// the informer never confirmed is dropped.
	expires sim.Time
	// unplaced: an assumption that does not count on its node (only the
	// SchedulerIgnoresAssumed ablation makes one).
	unplaced bool
}

// schedCache is kube-scheduler's cache: nodes and the pods that count on
// them, keyed by pod UID. Assumed pods count from the moment the scheduler
// chose their node, before the binding is written, so that the next
// scheduling cycle sees their resources taken.
type schedCache struct {
	nodes map[string]*nodeInfo
	pods  map[model.UID]*podState
	// ignoreAssumed is the SchedulerIgnoresAssumed ablation: an assumed
	// pod counts on its node only once the informer shows it bound.
	ignoreAssumed bool
}

func newSchedCache(ignoreAssumed bool) *schedCache {
	return &schedCache{nodes: make(map[string]*nodeInfo), pods: make(map[model.UID]*podState), ignoreAssumed: ignoreAssumed}
}

func (c *schedCache) nodeInfoOf(name string) *nodeInfo {
	n := c.nodes[name]
	if n == nil {
		n = &nodeInfo{name: name}
		c.nodes[name] = n
	}
	return n
}

// maybeDropNodeInfo forgets a node that is gone and has no pods left.
func (c *schedCache) maybeDropNodeInfo(n *nodeInfo) {
	if n.node == nil && n.numPods == 0 {
		delete(c.nodes, n.name)
	}
}

// setNode adds or updates a node.
func (c *schedCache) setNode(node *model.Node) { c.nodeInfoOf(node.Name).node = node }

// removeNode forgets a node; its pods keep counting until they go.
func (c *schedCache) removeNode(name string) {
	if n := c.nodes[name]; n != nil {
		n.node = nil
		c.maybeDropNodeInfo(n)
	}
}

// nodeList returns the nodes with a Node object, in name order.
func (c *schedCache) nodeList() []*nodeInfo {
	var out []*nodeInfo
	for _, name := range sim.SortedKeys(c.nodes) {
		if n := c.nodes[name]; n.node != nil {
			out = append(out, n)
		}
	}
	return out
}

func (c *schedCache) place(pod *model.Pod) { c.nodeInfoOf(pod.Spec.NodeName).addPod(pod) }

func (c *schedCache) unplace(pod *model.Pod) {
	if n := c.nodes[pod.Spec.NodeName]; n != nil {
		n.removePod(pod)
		c.maybeDropNodeInfo(n)
	}
}

// setPod records a bound pod as the informer shows it: it confirms an
// assumption (on the informer's node, should it differ) or replaces the
// pod's previous state.
func (c *schedCache) setPod(pod *model.Pod) {
	if old := c.pods[pod.UID]; old != nil && !old.unplaced {
		c.unplace(old.pod)
	}
	c.pods[pod.UID] = &podState{pod: pod}
	c.place(pod)
}

// removePod forgets a pod that is gone (or terminal).
func (c *schedCache) removePod(uid model.UID) {
	if st := c.pods[uid]; st != nil {
		if !st.unplaced {
			c.unplace(st.pod)
		}
		delete(c.pods, uid)
	}
}

// assumePod counts pod (whose spec.nodeName is the chosen node) before it
// is bound.
func (c *schedCache) assumePod(pod *model.Pod) {
	c.removePod(pod.UID)
	c.pods[pod.UID] = &podState{pod: pod, assumed: true, unplaced: c.ignoreAssumed}
	if !c.ignoreAssumed {
		c.place(pod)
	}
}

// isAssumed reports an assumption the informer has not confirmed yet.
func (c *schedCache) isAssumed(uid model.UID) bool {
	st := c.pods[uid]
	return st != nil && st.assumed
}

// finishBinding marks an assumption whose binding succeeded; with a TTL it
// expires at expires unless the informer confirms it first.
func (c *schedCache) finishBinding(uid model.UID, expires sim.Time) {
	if st := c.pods[uid]; st != nil && st.assumed {
		st.bindingFinished = true
		st.expires = expires
	}
}

// forgetPod drops an assumption whose binding failed.
func (c *schedCache) forgetPod(uid model.UID) {
	if c.isAssumed(uid) {
		c.removePod(uid)
	}
}

// expireAssumed drops the unconfirmed assumptions whose TTL ran out, as
// cleanupAssumedPods, and reports whether any went.
func (c *schedCache) expireAssumed(now sim.Time) bool {
	expired := false
	for _, uid := range sim.SortedKeys(c.pods) {
		st := c.pods[uid]
		if st.assumed && st.bindingFinished && st.expires > 0 && st.expires <= now {
			c.removePod(uid)
			expired = true
		}
	}
	return expired
}

// hasExpiring reports an assumption with a TTL running.
func (c *schedCache) hasExpiring() bool {
	// determinism: an existence test; the order cannot show.
	for _, st := range c.pods {
		if st.assumed && st.bindingFinished && st.expires > 0 {
			return true
		}
	}
	return false
}
