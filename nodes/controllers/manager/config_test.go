package manager

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// TestConfigDefaults: a zero Config gets kube-controller-manager's real
// leader-election flags (--leader-elect-lease-duration 15s,
// --leader-elect-renew-deadline 10s, --leader-elect-retry-period 2s;
// k8s.io/component-base/config/v1alpha1, RecommendedDefaultLeaderElectionConfiguration)
// and the host's name; a Config that sets them keeps its own values.
func TestConfigDefaults(t *testing.T) {
	h := sim.NewWorld(1).MustAddHost(sim.HostSpec{Name: "kcm-1"})
	got := Config{}.withDefaults(h)
	require.Equal(t, "kcm-1", got.Name)
	require.Equal(t, 15*time.Second, got.LeaseDuration)
	require.Equal(t, 10*time.Second, got.RenewDeadline)
	require.Equal(t, 2*time.Second, got.RetryPeriod)
	require.Equal(t, DefaultRestartDelay, got.RestartDelay)

	set := Config{Name: "mine", LeaseDuration: 30 * time.Second, RenewDeadline: 20 * time.Second,
		RetryPeriod: 4 * time.Second, RestartDelay: 3 * time.Second}
	require.Equal(t, set, set.withDefaults(h))
}
