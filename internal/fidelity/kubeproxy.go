package fidelity

import "github.com/kubesim/kubesim/nodes/kubeproxy"

// The sources of kube-proxy's defaults.
const (
	proxyCfg     = k8s + "pkg/proxy/apis/config/v1alpha1/defaults.go SetDefaults_KubeProxyConfiguration"
	proxyIPTable = k8s + "pkg/proxy/iptables/proxier.go NewProxier"
	proxyTest    = "nodes/kubeproxy "
)

func kubeProxyDefaults() []Entry {
	const l = "kube-proxy"
	return []Entry{
		{l, "iptables min sync period", kubeproxy.DefaultMinSyncPeriod, "1 s",
			proxyCfg + " (IPTables.MinSyncPeriod)", "nodes/kubeproxy DefaultMinSyncPeriod", proxyTest + "TestMinSyncPeriod"},
		{l, "iptables sync period (canary check and retry; no periodic sync)", kubeproxy.DefaultSyncPeriod, "30 s",
			proxyCfg + " (IPTables.SyncPeriod)", "nodes/kubeproxy DefaultSyncPeriod", ""},
		{l, "Sync runner's maximum interval", kubeproxy.DefaultMaxSyncInterval, "60 min",
			proxyIPTable + " (NewBoundedFrequencyRunner(..., minSyncPeriod, time.Hour, burstSyncs))", "nodes/kubeproxy DefaultMaxSyncInterval", proxyTest + "TestPeriodicSync"},
		{l, "Sync runner's burst", kubeproxy.BurstSyncs, "2",
			proxyIPTable + " (burstSyncs)", "nodes/kubeproxy BurstSyncs", proxyTest + "TestRunnerBurstThenMinPeriod"},
	}
}
