package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// deletePod deletes a pod at once (grace 0) as admin.
func (tc *testCluster) deletePod(name string) {
	tc.t.Helper()
	var err error
	done := false
	tc.Admin().Pods("default").Delete(name, client.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))},
		func(_ model.Object, e error) { err, done = e, true })
	tc.Run(time.Second)
	require.True(tc.t, done)
	require.NoError(tc.t, err)
}

// setPhase writes a pod's phase as admin (as its kubelet would).
func (tc *testCluster) setPhase(name string, phase model.PodPhase) {
	tc.t.Helper()
	p := tc.pods()[name].DeepCopy()
	p.Status.Phase = phase
	var err error
	done := false
	tc.Admin().Pods("default").UpdateStatus(p, func(_ model.Object, e error) { err, done = e, true })
	tc.Run(time.Second)
	require.True(tc.t, done)
	require.NoError(tc.t, err)
}

func TestNodeResourcesFollowPodEvents(t *testing.T) {
	tc := newTestCluster(t, 20, 1, nil)
	tc.createNode(nodeSpec{name: "a", cpu: "1", memory: "4Gi"})
	tc.addScheduler("scheduler", nil)
	tc.createPod(podSpec{name: "first", cpu: "1"})
	tc.runUntilBound(20*time.Second, "first")

	// The node is full: the next pod is parked, then bound as soon as the
	// first one is deleted (an assigned pod's deletion retries parked pods).
	tc.createPod(podSpec{name: "second", cpu: "1"})
	tc.Run(5 * time.Second)
	require.Empty(t, tc.nodeOf("second"))
	tc.deletePod("first")
	tc.runUntilBound(2*time.Second, "second")

	// A pod that ended (Succeeded) frees its requests too.
	tc.createPod(podSpec{name: "third", cpu: "1"})
	tc.Run(5 * time.Second)
	require.Empty(t, tc.nodeOf("third"))
	tc.setPhase("second", model.PodSucceeded)
	tc.runUntilBound(2*time.Second, "third")

	// A parked pod that is deleted leaves the queue.
	tc.createPod(podSpec{name: "fourth", cpu: "1"})
	tc.Run(5 * time.Second)
	require.Equal(t, []string{"default/fourth"}, tc.scheduler("scheduler").Pending())
	tc.deletePod("fourth")
	require.Empty(t, tc.scheduler("scheduler").Pending())
	tc.requireBoundOnce()
}

// TestBindOverALossyLinkWaitsForRetransmission: the scheduler's requests
// are lost while its watches still deliver. client-go puts no timeout on
// the bind (rest.Config.Timeout 0) and the connection's health check stays
// satisfied (frames keep arriving: golang.org/x/net/http2 healthCheck only
// pings a connection that read nothing for 30 s), so the bind neither
// fails nor backs off: it waits, and TCP's retransmission (kubesim's
// sim.CallOptions.Retransmit) delivers it once the link heals, and the
// pod is bound once.
func TestBindOverALossyLinkWaitsForRetransmission(t *testing.T) {
	tc := newTestCluster(t, 21, 1, nil)
	tc.createNode(nodeSpec{name: "a", cpu: "4", memory: "8Gi"})
	sched := tc.addScheduler("scheduler", func(c *Config) { c.DisableLeaderElection = true })
	tc.Run(5 * time.Second)

	server := tc.Servers[0]
	flushes := 0
	tc.W.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindTimer && e.Host == sched.ID() && e.Name == "scheduler-flush-backoff" {
			flushes++
		}
	})
	tc.W.Network().Cut(sched.ID(), server)
	tc.createPod(podSpec{name: "p"})
	tc.Run(25 * time.Second)
	require.Empty(t, tc.nodeOf("p"))
	require.Zero(t, flushes, "the bind did not fail: nothing backed off")
	healed := tc.W.Now()
	tc.W.Network().Uncut(sched.ID(), server)
	// The next copy of the bind leaves within one retransmission timeout
	// (it doubles from 200 ms: 12.8 s by the 25 s cut's end, 25.6 s next).
	tc.runUntilBound(26*time.Second, "p")
	require.Len(t, tc.bound, 1)
	require.Greater(t, tc.W.Now(), healed)
	require.Empty(t, tc.scheduler("scheduler").Pending())
	tc.requireBoundOnce()
}
