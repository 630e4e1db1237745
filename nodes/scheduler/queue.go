package scheduler

import (
	"container/heap"
	"maps"
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// where a queued pod is.
type location uint8

const (
	inActive        location = iota + 1 // activeQ: ready to be scheduled
	inBackoff                           // backoffQ: waiting out its backoff
	inUnschedulable                     // unschedulablePods: waiting for a cluster event
	inFlight                            // popped: being scheduled or bound
)

// queuedPod is a pending pod in the scheduling queue, as QueuedPodInfo.
type queuedPod struct {
	key string
	pod *model.Pod // the latest the informer showed; never modified
	// attempts counts scheduling attempts; the backoff doubles with each.
	attempts int
	// timestamp is when the pod was added or last failed: it orders
	// activeQ among equal priorities and starts the backoff.
	timestamp sim.Time
	// unschedulableSince is when it was parked as unschedulable, and msg
	// why (the PodScheduled condition's message).
	unschedulableSince sim.Time
	msg                string
	seq                uint64 // insertion order, the last tie-break
	where              location
	index              int // in its heap
}

// schedulingQueue is kube-scheduler's PriorityQueue: an active queue in
// priority order (PrioritySort: higher .spec.priority first, then earlier
// timestamp), a backoff queue ordered by backoff expiry and the
// unschedulable pods waiting for a cluster event. Pods are keyed
// "namespace/name". A popped pod stays known (in flight) until Done, so
// that informer events about it are not mistaken for a new pod.
type schedulingQueue struct {
	initialBackoff, maxBackoff time.Duration
	maxUnschedulable           time.Duration
	now                        func() sim.Time

	pods          map[string]*queuedPod
	active        podHeap
	backoff       podHeap
	unschedulable map[string]*queuedPod
	seq           uint64
}

func newSchedulingQueue(cfg Config, now func() sim.Time) *schedulingQueue {
	q := &schedulingQueue{
		initialBackoff:   cfg.PodInitialBackoff,
		maxBackoff:       cfg.PodMaxBackoff,
		maxUnschedulable: cfg.PodMaxInUnschedulablePodsDuration,
		now:              now,
		pods:             make(map[string]*queuedPod),
		unschedulable:    make(map[string]*queuedPod),
	}
	q.active.less = activeLess
	q.backoff.less = q.backoffLess
	return q
}

// activeLess is the PrioritySort plugin's order.
func activeLess(a, b *queuedPod) bool {
	pa, pb := model.Deref(a.pod.Spec.Priority, 0), model.Deref(b.pod.Spec.Priority, 0)
	if pa != pb {
		return pa > pb
	}
	if a.timestamp != b.timestamp {
		return a.timestamp < b.timestamp
	}
	return a.seq < b.seq
}

func (q *schedulingQueue) backoffLess(a, b *queuedPod) bool {
	ea, eb := q.backoffExpiry(a), q.backoffExpiry(b)
	if ea != eb {
		return ea < eb
	}
	return a.seq < b.seq
}

// backoffDuration is calculateBackoffDuration: the initial backoff doubled
// for every attempt after the first, capped at the maximum.
func (q *schedulingQueue) backoffDuration(attempts int) time.Duration {
	d := q.initialBackoff
	for i := 1; i < attempts; i++ {
		if d > q.maxBackoff/2 {
			return q.maxBackoff
		}
		d *= 2
	}
	return min(d, q.maxBackoff)
}

// backoffExpiry is when a pod's backoff ends.
func (q *schedulingQueue) backoffExpiry(p *queuedPod) sim.Time {
	return p.timestamp.Add(q.backoffDuration(p.attempts))
}

// isBackingOff reports whether p's backoff is still running.
func (q *schedulingQueue) isBackingOff(p *queuedPod) bool {
	return p.attempts > 0 && q.backoffExpiry(p) > q.now()
}

// get returns the queued pod of key, or nil.
func (q *schedulingQueue) get(key string) *queuedPod { return q.pods[key] }

// add puts a newly seen pending pod in the active queue; a known key is an
// update.
func (q *schedulingQueue) add(pod *model.Pod) {
	key := model.KeyOf(pod).String()
	if old := q.pods[key]; old != nil {
		q.update(pod)
		return
	}
	q.seq++
	p := &queuedPod{key: key, pod: pod, timestamp: q.now(), seq: q.seq}
	q.pods[key] = p
	q.toActive(p)
}

// update records the latest state of a pending pod (adding it if unknown).
// An unschedulable pod whose spec or labels changed is retried, as the
// real queue's Update does; status-only changes (its own PodScheduled
// condition above all) leave it parked.
func (q *schedulingQueue) update(pod *model.Pod) {
	key := model.KeyOf(pod).String()
	p := q.pods[key]
	if p == nil {
		q.add(pod)
		return
	}
	if p.pod.UID != pod.UID { // recreated under the same name
		q.delete(key)
		q.add(pod)
		return
	}
	changed := podUpdated(p.pod, pod)
	p.pod = pod
	if p.where == inUnschedulable && changed {
		q.moveToActiveOrBackoff(p)
	}
}

// podUpdated reports a change a scheduling attempt could depend on: spec,
// labels or annotations (isPodUpdated strips status and resourceVersion).
func podUpdated(old, cur *model.Pod) bool {
	return !equalPodSpec(&old.Spec, &cur.Spec) || !maps.Equal(old.Labels, cur.Labels) ||
		!maps.Equal(old.Annotations, cur.Annotations)
}

// delete forgets key wherever it is.
func (q *schedulingQueue) delete(key string) {
	p := q.pods[key]
	if p == nil {
		return
	}
	q.detach(p)
	delete(q.pods, key)
}

// detach takes p out of its heap or map (it stays known).
func (q *schedulingQueue) detach(p *queuedPod) {
	switch p.where {
	case inActive:
		heap.Remove(&q.active, p.index)
	case inBackoff:
		heap.Remove(&q.backoff, p.index)
	case inUnschedulable:
		delete(q.unschedulable, p.key)
	}
	p.where = 0
}

// pop takes the first pod of the active queue and marks it in flight,
// counting the attempt; nil when the active queue is empty.
func (q *schedulingQueue) pop() *queuedPod {
	if q.active.Len() == 0 {
		return nil
	}
	p := heap.Pop(&q.active).(*queuedPod)
	p.where = inFlight
	p.attempts++
	return p
}

// done forgets an in-flight pod: bound, or dropped for the informer to
// decide. It does nothing when p is no longer the key's entry.
func (q *schedulingQueue) done(p *queuedPod) {
	if q.pods[p.key] == p {
		q.delete(p.key)
	}
}

// addUnschedulable parks an in-flight pod that no node fits.
func (q *schedulingQueue) addUnschedulable(p *queuedPod) {
	if q.pods[p.key] != p || p.where != inFlight {
		return
	}
	now := q.now()
	p.timestamp, p.unschedulableSince = now, now
	p.where = inUnschedulable
	q.unschedulable[p.key] = p
}

// addBackoff requeues an in-flight pod whose attempt failed with an error
// (not "unschedulable"): it goes to the backoff queue directly.
func (q *schedulingQueue) addBackoff(p *queuedPod) {
	if q.pods[p.key] != p || p.where != inFlight {
		return
	}
	p.timestamp = q.now()
	q.toBackoff(p)
}

func (q *schedulingQueue) toActive(p *queuedPod) {
	p.where = inActive
	heap.Push(&q.active, p)
}

func (q *schedulingQueue) toBackoff(p *queuedPod) {
	p.where = inBackoff
	heap.Push(&q.backoff, p)
}

// moveToActiveOrBackoff moves an unschedulable pod on.
func (q *schedulingQueue) moveToActiveOrBackoff(p *queuedPod) {
	q.detach(p)
	if q.isBackingOff(p) {
		q.toBackoff(p)
		return
	}
	q.toActive(p)
}

// moveAllToActiveOrBackoff is MoveAllToActiveOrBackoffQueue: a cluster
// event (a node added or changed, an assigned pod gone) may have made the
// unschedulable pods schedulable.
func (q *schedulingQueue) moveAllToActiveOrBackoff() {
	for _, key := range sim.SortedKeys(q.unschedulable) {
		q.moveToActiveOrBackoff(q.unschedulable[key])
	}
}

// flushBackoffCompleted moves the pods whose backoff ended to the active
// queue.
func (q *schedulingQueue) flushBackoffCompleted() {
	now := q.now()
	for q.backoff.Len() > 0 && q.backoffExpiry(q.backoff.items[0]) <= now {
		p := heap.Pop(&q.backoff).(*queuedPod)
		q.toActive(p)
	}
}

// flushUnschedulableLeftover retries the pods parked for longer than
// podMaxInUnschedulablePodsDuration.
func (q *schedulingQueue) flushUnschedulableLeftover() {
	now := q.now()
	for _, key := range sim.SortedKeys(q.unschedulable) {
		p := q.unschedulable[key]
		if now.Sub(p.unschedulableSince) > q.maxUnschedulable {
			q.moveToActiveOrBackoff(p)
		}
	}
}

// Lengths of the sub-queues.
func (q *schedulingQueue) activeLen() int        { return q.active.Len() }
func (q *schedulingQueue) backoffLen() int       { return q.backoff.Len() }
func (q *schedulingQueue) unschedulableLen() int { return len(q.unschedulable) }

// keys returns every known pending pod's key, in order.
func (q *schedulingQueue) keys() []string { return sim.SortedKeys(q.pods) }

// podHeap is a container/heap of queued pods with a configurable order.
type podHeap struct {
	items []*queuedPod
	less  func(a, b *queuedPod) bool
}

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = i, j
}

// Push implements heap.Interface.
func (h *podHeap) Push(x any) {
	p := x.(*queuedPod)
	p.index = len(h.items)
	h.items = append(h.items, p)
}

// Pop implements heap.Interface.
func (h *podHeap) Pop() any {
	n := len(h.items)
	p := h.items[n-1]
	h.items[n-1] = nil
	h.items = h.items[:n-1]
	p.index = -1
	return p
}
