package fidelity

import (
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/client/cache"
	"github.com/kubesim/kubesim/nodes/client/leaderelection"
	"github.com/kubesim/kubesim/nodes/client/workqueue"
	"github.com/kubesim/kubesim/nodes/controllers/manager"
	"github.com/kubesim/kubesim/nodes/scheduler"
)

// The sources in client-go and component-base.
const (
	clientGo       = "kubernetes/client-go v0.34 "
	reflectorSrc   = clientGo + "tools/cache/reflector.go NewReflectorWithOptions: wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)"
	rateLimitSrc   = clientGo + "util/workqueue/default_rate_limiters.go DefaultTypedControllerRateLimiter"
	leaderElectSrc = "kubernetes/kubernetes v1.34 staging/src/k8s.io/component-base/config/v1alpha1/defaults.go RecommendedDefaultLeaderElectionConfiguration"
	http2Src       = "kubernetes/kubernetes v1.34 staging/src/k8s.io/apimachinery/pkg/util/net/http.go configureHTTP2Transport, "
	leaderTests    = "nodes/controllers/manager TestConfigDefaults, nodes/scheduler TestConfigDefaults"
)

func clientDefaults() []Entry {
	const l = "client-go"
	return []Entry{
		{l, "HTTP/2 health check: read idle timeout (then PING)", client.DefaultReadIdleTimeout, "30 s",
			http2Src + "readIdleTimeoutSeconds (HTTP2_READ_IDLE_TIMEOUT_SECONDS)", "nodes/client DefaultReadIdleTimeout", "nodes/client TestHealthCheckDetectsDeadServer"},
		{l, "HTTP/2 health check: PING timeout (then close)", client.DefaultPingTimeout, "15 s",
			http2Src + "pingTimeoutSeconds (HTTP2_PING_TIMEOUT_SECONDS)", "nodes/client DefaultPingTimeout", "nodes/client TestHealthCheckDetectsDeadServer"},
		{l, "Request timeout (rest.Config.Timeout)", client.DefaultTimeout, "0",
			clientGo + "rest/config.go Config.Timeout (zero means no timeout)", "nodes/client DefaultTimeout", "nodes/client TestSlowServerAnsweringPingsIsNotDropped"},
		{l, "RetryOnConflict's DefaultRetry", client.DefaultRetry, "5 steps from 10 ms, factor 1, jitter 0.1",
			clientGo + "util/retry/util.go DefaultRetry", "nodes/client DefaultRetry", "nodes/client TestRetryOnConflictGivesUpAfterFive"},
		{l, "retry.DefaultBackoff", client.DefaultBackoff, "4 steps from 10 ms, factor 5, jitter 0.1",
			clientGo + "util/retry/util.go DefaultBackoff", "nodes/client DefaultBackoff", "nodes/client TestDefaultBackoffGrows"},
		{l, "Reflector backoff: initial", cache.BackoffInitial, "800 ms", reflectorSrc, "nodes/client/cache BackoffInitial", "nodes/client/cache TestBackoffManager"},
		{l, "Reflector backoff: maximum", cache.BackoffMax, "30 s", reflectorSrc, "nodes/client/cache BackoffMax", "nodes/client/cache TestBackoffManager"},
		{l, "Reflector backoff: reset after", cache.BackoffReset, "2 min", reflectorSrc, "nodes/client/cache BackoffReset", "nodes/client/cache TestBackoffResetIsStrict"},
		{l, "Reflector backoff: factor", cache.BackoffFactor, "2", reflectorSrc, "nodes/client/cache BackoffFactor", "nodes/client/cache TestBackoffManager"},
		{l, "Reflector backoff: jitter", cache.BackoffJitter, "1", reflectorSrc, "nodes/client/cache BackoffJitter", "nodes/client/cache TestBackoffManager"},
		{l, "Reflector watch timeout: minimum (drawn in [T, 2T))", cache.MinWatchTimeout, "5 min",
			clientGo + "tools/cache/reflector.go minWatchTimeout", "nodes/client/cache MinWatchTimeout", "nodes/client/cache TestWatchTimeout"},
		{l, "Controller rate limiter: per-item base delay", workqueue.DefaultItemBaseDelay, "5 ms", rateLimitSrc, "nodes/client/workqueue DefaultItemBaseDelay", "nodes/client/workqueue TestItemExponentialBackoff"},
		{l, "Controller rate limiter: per-item max delay", workqueue.DefaultItemMaxDelay, "1000 s", rateLimitSrc, "nodes/client/workqueue DefaultItemMaxDelay", ""},
		{l, "Controller rate limiter: overall qps", workqueue.DefaultQPS, "10", rateLimitSrc, "nodes/client/workqueue DefaultQPS", ""},
		{l, "Controller rate limiter: overall burst", workqueue.DefaultBurst, "100", rateLimitSrc, "nodes/client/workqueue DefaultBurst", ""},
		{l, "Leader election: lease duration", leaderelection.DefaultLeaseDuration, "15 s", leaderElectSrc, "nodes/client/leaderelection DefaultLeaseDuration", leaderTests},
		{l, "Leader election: renew deadline", leaderelection.DefaultRenewDeadline, "10 s", leaderElectSrc, "nodes/client/leaderelection DefaultRenewDeadline", leaderTests},
		{l, "Leader election: retry period", leaderelection.DefaultRetryPeriod, "2 s", leaderElectSrc, "nodes/client/leaderelection DefaultRetryPeriod", leaderTests},
		{l, "Leader election: jitter factor", leaderelection.JitterFactor, "1.2",
			clientGo + "tools/leaderelection/leaderelection.go JitterFactor", "nodes/client/leaderelection JitterFactor", ""},
		{l, "Leader election: the lock client's request timeout (max(1 s, renew deadline / 2))", leaderelection.ClientTimeout(leaderelection.DefaultRenewDeadline), "5 s",
			clientGo + "tools/leaderelection/resourcelock/interface.go NewFromKubeconfig", "nodes/client/leaderelection ClientTimeout (used by nodes/scheduler and nodes/controllers/manager)",
			"nodes/scheduler TestLostLeadershipRestartsTheProcess, nodes/controllers/manager TestLeaderElectionSettings"},
		{l, "Leader election: kube-scheduler releases its Lease on losing leadership (ReleaseOnCancel)", scheduler.ReleaseOnCancel, "true",
			"kubernetes/kubernetes v1.34 cmd/kube-scheduler/app/options/options.go makeLeaderElectionConfig", "nodes/scheduler ReleaseOnCancel", "nodes/scheduler TestReleasedLeaseIsTakenOverAtOnce"},
		{l, "Leader election: kube-controller-manager releases its Lease on losing leadership (ReleaseOnCancel)", manager.ReleaseOnCancel, "false",
			"kubernetes/kubernetes v1.34 cmd/kube-controller-manager/app/controllermanager.go leaderElectAndRun", "nodes/controllers/manager ReleaseOnCancel", "nodes/controllers/manager TestLeaderElectionSettings"},
	}
}
