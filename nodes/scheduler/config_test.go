package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
)

// TestConfigDefaults: a zero Config gets kube-scheduler's real defaults:
// leader election on the kube-scheduler Lease with 15s/10s/2s
// (k8s.io/kubernetes/pkg/scheduler/apis/config/v1, SetDefaults_KubeSchedulerConfiguration),
// pod backoff from 1s to 10s (the same function's PodInitialBackoffSeconds
// and PodMaxBackoffSeconds) and 5 minutes at most among the unschedulable
// pods (pkg/scheduler/internal/queue, DefaultPodMaxInUnschedulablePodsDuration);
// a Config that sets them keeps its own values.
func TestConfigDefaults(t *testing.T) {
	h := sim.NewWorld(1).MustAddHost(sim.HostSpec{Name: "sched-1"})
	got := Config{}.withDefaults(h)
	require.Equal(t, "sched-1", got.Name)
	require.Equal(t, model.DefaultSchedulerName, got.SchedulerName)
	require.Equal(t, "kube-scheduler", got.LeaseName)
	require.Equal(t, 15*time.Second, got.LeaseDuration)
	require.Equal(t, 10*time.Second, got.RenewDeadline)
	require.Equal(t, 2*time.Second, got.RetryPeriod)
	require.Equal(t, DefaultRestartDelay, got.RestartDelay)
	require.Equal(t, 1*time.Second, got.PodInitialBackoff)
	require.Equal(t, 10*time.Second, got.PodMaxBackoff)
	require.Equal(t, 5*time.Minute, got.PodMaxInUnschedulablePodsDuration)

	set := Config{Name: "mine", SchedulerName: "other", LeaseName: "l", LeaseDuration: 30 * time.Second,
		RenewDeadline: 20 * time.Second, RetryPeriod: 4 * time.Second, RestartDelay: 3 * time.Second,
		PodInitialBackoff: 2 * time.Second, PodMaxBackoff: 20 * time.Second, PodMaxInUnschedulablePodsDuration: time.Minute}
	require.Equal(t, set, set.withDefaults(h))
}
