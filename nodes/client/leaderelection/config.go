// Package leaderelection is client-go's tools/leaderelection on Lease
// objects, as an actor: candidates try to acquire a Lease every RetryPeriod
// (jittered by JitterFactor), and take it over only once it has not changed
// for LeaseDuration as measured on their own clock from when they last saw
// it change (client-go's observedTime, not the lease's renewTime). The
// leader renews every RetryPeriod and steps down when a renewal round has
// not succeeded within RenewDeadline; with ReleaseOnCancel it then clears
// the Lease's holder, if it last saw itself as holder, before it calls
// OnStoppedLeading. The defaults are kube-controller-manager's: 15 s,
// 10 s, 2 s.
package leaderelection

import (
	"cmp"
	"errors"
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/defaults"
)

// ClientTimeout is the request timeout of a leader-election client:
// max(1 s, renewDeadline/2), as client-go's
// tools/leaderelection/resourcelock/interface.go NewFromKubeconfig sets it
// ("to keep a single hung request from forcing a leader loss");
// kube-controller-manager and kube-scheduler build their locks with it.
func ClientTimeout(renewDeadline time.Duration) time.Duration {
	return max(time.Second, renewDeadline/2)
}

// client-go's defaults, as kube-controller-manager and kube-scheduler use
// them.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	// JitterFactor jitters the retry period of acquisition: waits are
	// uniform in [RetryPeriod, RetryPeriod*(1+JitterFactor)).
	JitterFactor = 1.2
	// DefaultNamespace is where control-plane components keep their leases.
	DefaultNamespace = "kube-system"
)

// WithDefaultTimes returns lease, renew and retry, each not positive one
// replaced by its default (DefaultLeaseDuration, DefaultRenewDeadline,
// DefaultRetryPeriod): the --leader-elect-lease-duration, -renew-deadline
// and -retry-period defaults that kube-scheduler and
// kube-controller-manager share (component-base's
// RecommendedDefaultLeaderElectionConfiguration).
func WithDefaultTimes(lease, renew, retry time.Duration) (time.Duration, time.Duration, time.Duration) {
	defaults.Positive(&lease, DefaultLeaseDuration)
	defaults.Positive(&renew, DefaultRenewDeadline)
	defaults.Positive(&retry, DefaultRetryPeriod)
	return lease, renew, retry
}

// LeaderCallbacks are called on leadership changes, as client-go's.
type LeaderCallbacks struct {
	// OnStartedLeading: this candidate became the leader.
	OnStartedLeading func()
	// OnStoppedLeading: the elector stopped: leadership was lost (or never
	// held, when Stop is called), as client-go calls it when Run returns.
	OnStoppedLeading func()
	// OnNewLeader: the observed holder changed (including to this candidate).
	OnNewLeader func(identity string)
	// OnRenewed: the leader renewed its lease (a renewal round succeeded).
	// client-go has no such callback (it logs "successfully renewed
	// lease"); kubesim's components trace it, because a leader's renew
	// deadline runs from it.
	OnRenewed func()
}

// Config configures a LeaderElector, as LeaderElectionConfig with a
// LeaseLock.
type Config struct {
	// Client talks to the API server; kube-controller-manager gives it a
	// request timeout equal to RenewDeadline.
	Client *client.Client
	// Namespace and Name of the Lease; Namespace defaults to "kube-system".
	Namespace string
	Name      string
	// Identity is this candidate's holder identity.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod default to client-go's.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Callbacks are told of changes.
	Callbacks LeaderCallbacks
	// ReleaseOnCancel makes the end of leading release a held lease
	// (holder cleared, duration 1 s) before OnStoppedLeading, both when
	// Stop is called and when a renewal round fails, as client-go's renew.
	ReleaseOnCancel bool
	// Ablations are the run's ablation switches; the elector asks for
	// ablation.LeaderNoStepDown and ablation.LeaderUsesWallClock.
	Ablations ablation.Set
}

func (cfg *Config) validate() error {
	cfg.Namespace = cmp.Or(cfg.Namespace, DefaultNamespace)
	cfg.LeaseDuration = cmp.Or(cfg.LeaseDuration, DefaultLeaseDuration)
	cfg.RenewDeadline = cmp.Or(cfg.RenewDeadline, DefaultRenewDeadline)
	cfg.RetryPeriod = cmp.Or(cfg.RetryPeriod, DefaultRetryPeriod)
	switch {
	case cfg.Client == nil:
		return errors.New("leaderelection: Client is required")
	case cfg.Name == "":
		return errors.New("leaderelection: lease Name is required")
	case cfg.Identity == "":
		return errors.New("leaderelection: Identity is required")
	case cfg.LeaseDuration <= cfg.RenewDeadline:
		return errors.New("leaseDuration must be greater than renewDeadline")
	case cfg.RenewDeadline <= time.Duration(JitterFactor*float64(cfg.RetryPeriod)):
		return errors.New("renewDeadline must be greater than retryPeriod*JitterFactor")
	case cfg.RetryPeriod < 1:
		return errors.New("retryPeriod must be greater than zero")
	}
	return nil
}
