package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// fakeClock is a settable now for queue tests.
type fakeClock struct{ t sim.Time }

func (c *fakeClock) now() sim.Time        { return c.t }
func (c *fakeClock) step(d time.Duration) { c.t = c.t.Add(d) }
func newTestQueue(c *fakeClock) *schedulingQueue {
	return newSchedulingQueue(Config{Name: "test"}.withDefaults(nil), c.now)
}

func queuePod(name string, priority int32) *model.Pod {
	return &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", UID: model.UID("uid-" + name)},
		Spec: model.PodSpec{Priority: model.Ptr(priority)}}
}

func TestBackoffDuration(t *testing.T) {
	q := newTestQueue(&fakeClock{})
	tests := []struct {
		attempts int
		want     time.Duration
	}{
		{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {4, 8 * time.Second},
		{5, 10 * time.Second}, {12, 10 * time.Second},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, q.backoffDuration(tt.attempts), "attempts %d", tt.attempts)
	}
}

func TestActiveQueueOrder(t *testing.T) {
	c := &fakeClock{}
	q := newTestQueue(c)
	q.add(queuePod("low-early", 0))
	c.step(time.Second)
	q.add(queuePod("high", 10))
	q.add(queuePod("low-late", 0))
	q.add(queuePod("low-late-2", 0)) // same timestamp: insertion order
	var got []string
	for p := q.pop(); p != nil; p = q.pop() {
		got = append(got, p.pod.Name)
		require.Equal(t, 1, p.attempts)
		require.Equal(t, inFlight, p.where)
	}
	require.Equal(t, []string{"high", "low-early", "low-late", "low-late-2"}, got)
	require.Len(t, q.keys(), 4, "in-flight pods stay known until done")
}

func TestUnschedulablePodsWaitForAnEventOrFiveMinutes(t *testing.T) {
	tests := []struct {
		name      string
		attempts  int
		wait      time.Duration
		event     func(q *schedulingQueue)
		wantWhere location
	}{
		{name: "no event: parked", attempts: 1, wait: time.Minute, wantWhere: inUnschedulable},
		{name: "event after the backoff: active", attempts: 1, wait: 1500 * time.Millisecond,
			event: (*schedulingQueue).moveAllToActiveOrBackoff, wantWhere: inActive},
		{name: "event during the backoff: backoff queue", attempts: 3, wait: 3 * time.Second,
			event: (*schedulingQueue).moveAllToActiveOrBackoff, wantWhere: inBackoff},
		{name: "backoff over: flushed to active", attempts: 3, wait: 4 * time.Second,
			event: func(q *schedulingQueue) { q.moveAllToActiveOrBackoff(); q.flushBackoffCompleted() }, wantWhere: inActive},
		{name: "leftover flush before 5 min: parked", attempts: 1, wait: 5 * time.Minute,
			event: (*schedulingQueue).flushUnschedulableLeftover, wantWhere: inUnschedulable},
		{name: "leftover flush after 5 min: active", attempts: 1, wait: 5*time.Minute + time.Second,
			event: (*schedulingQueue).flushUnschedulableLeftover, wantWhere: inActive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeClock{}
			q := newTestQueue(c)
			q.add(queuePod("p", 0))
			p := q.pop()
			p.attempts = tt.attempts
			q.addUnschedulable(p)
			require.Equal(t, 1, q.unschedulableLen())
			c.step(tt.wait)
			if tt.event != nil {
				tt.event(q)
			}
			require.Equal(t, tt.wantWhere, q.get("default/p").where)
		})
	}
}

func TestQueueUpdates(t *testing.T) {
	c := &fakeClock{}
	q := newTestQueue(c)
	pod := queuePod("p", 0)
	q.add(pod)
	p := q.pop()
	q.addUnschedulable(p)
	c.step(time.Minute)

	// A status-only change (its own PodScheduled condition) leaves it
	// parked; a label change retries it.
	status := pod.DeepCopy()
	status.Status.Conditions = []model.PodCondition{{Type: model.PodScheduled, Status: model.ConditionFalse}}
	q.update(status)
	require.Equal(t, inUnschedulable, q.get("default/p").where)
	require.Same(t, status, q.get("default/p").pod)
	labelled := status.DeepCopy()
	labelled.Labels = map[string]string{"x": "y"}
	q.update(labelled)
	require.Equal(t, inActive, q.get("default/p").where)

	// A recreated pod (new UID) starts afresh; delete forgets it; done
	// ignores a stale entry.
	p = q.pop()
	again := queuePod("p", 0)
	again.UID = "uid-2"
	q.update(again)
	fresh := q.get("default/p")
	require.NotSame(t, p, fresh)
	require.Equal(t, 0, fresh.attempts)
	q.done(p)
	require.Same(t, fresh, q.get("default/p"))
	q.delete("default/p")
	require.Nil(t, q.get("default/p"))
	require.Zero(t, q.activeLen())
}
