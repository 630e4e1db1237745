package fidelity

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/controllers/nodelifecycle"
	"github.com/kubesim/kubesim/nodes/controllers/podgc"
	"github.com/kubesim/kubesim/nodes/kubelet"
)

// The sources of the kubelet's and the node controllers' defaults.
const (
	k8s          = "kubernetes/kubernetes v1.34 "
	kubeletCfg   = k8s + "pkg/kubelet/apis/config/v1beta1/defaults.go SetDefaults_KubeletConfiguration"
	probeSrc     = k8s + "pkg/apis/core/v1/defaults.go SetDefaults_Probe"
	lifecycleCfg = "nodes/controllers/nodelifecycle TestConfigDefaults"
	tolerSrc     = k8s + "plugin/pkg/admission/defaulttolerationseconds/admission.go "
)

func kubeletDefaults() []Entry {
	const l = "kubelet"
	renew := time.Duration(float64(kubelet.DefaultNodeLeaseDuration) * kubelet.NodeLeaseRenewIntervalFraction)
	return []Entry{
		{l, "Node lease duration", kubelet.DefaultNodeLeaseDuration, "40 s",
			kubeletCfg + " (NodeLeaseDurationSeconds: 40)", "nodes/kubelet DefaultNodeLeaseDuration", "nodes/kubelet TestRegistrationAndLease"},
		{l, "Node lease renew interval (25% of the duration)", renew, "10 s",
			k8s + "pkg/kubelet/kubelet.go nodeLeaseRenewIntervalFraction", "nodes/kubelet NodeLeaseRenewIntervalFraction", "nodes/kubelet TestRegistrationAndLease"},
		{l, "Node status update frequency", kubelet.DefaultNodeStatusUpdateFrequency, "10 s",
			kubeletCfg + " (NodeStatusUpdateFrequency)", "nodes/kubelet DefaultNodeStatusUpdateFrequency", ""},
		{l, "Node status report frequency", kubelet.DefaultNodeStatusReportFrequency, "5 min",
			kubeletCfg + " (NodeStatusReportFrequency)", "nodes/kubelet DefaultNodeStatusReportFrequency", ""},
		{l, "Pod sync frequency", kubelet.DefaultSyncFrequency, "1 min",
			kubeletCfg + " (SyncFrequency)", "nodes/kubelet DefaultSyncFrequency", ""},
		{l, "Status manager sync period", kubelet.DefaultStatusSyncPeriod, "10 s",
			k8s + "pkg/kubelet/status/status_manager.go syncPeriod", "nodes/kubelet DefaultStatusSyncPeriod", ""},
		{l, "Housekeeping period", kubelet.DefaultHousekeepingPeriod, "2 s",
			k8s + "pkg/kubelet/kubelet.go housekeepingPeriod", "nodes/kubelet DefaultHousekeepingPeriod", ""},
		{l, "CrashLoopBackOff: initial", kubelet.DefaultBackoffInitial, "10 s",
			k8s + "pkg/kubelet/kubelet.go backOffPeriod", "nodes/kubelet DefaultBackoffInitial", "nodes/kubelet TestCrashBackoff"},
		{l, "CrashLoopBackOff: maximum", kubelet.DefaultBackoffMax, "5 min",
			k8s + "pkg/kubelet/kubelet.go MaxContainerBackOff", "nodes/kubelet DefaultBackoffMax", "nodes/kubelet TestCrashBackoff"},
		{l, "Least grace after a preStop hook", kubelet.MinGraceAfterPreStop, "2 s",
			k8s + "pkg/kubelet/kuberuntime/kuberuntime_manager.go minimumGracePeriodInSeconds (killContainer's floor after preStop)", "nodes/kubelet MinGraceAfterPreStop", "nodes/kubelet TestPreStopWithinGrace"},
		{l, "Probe period", seconds(model.DefaultProbePeriodSeconds), "10 s", probeSrc, "model DefaultProbePeriodSeconds", "model TestSetDefaultsPod"},
		{l, "Probe timeout", seconds(model.DefaultProbeTimeoutSeconds), "1 s", probeSrc, "model DefaultProbeTimeoutSeconds", "model TestSetDefaultsPod"},
		{l, "Probe success threshold", model.DefaultProbeSuccessThreshold, "1", probeSrc, "model DefaultProbeSuccessThreshold", "model TestSetDefaultsPod"},
		{l, "Probe failure threshold", model.DefaultProbeFailureThreshold, "3", probeSrc, "model DefaultProbeFailureThreshold", "model TestSetDefaultsPod"},
		{l, "Termination grace period", seconds(model.DefaultTerminationGracePeriodSeconds), "30 s",
			k8s + "pkg/apis/core/v1/defaults.go SetDefaults_PodSpec", "model DefaultTerminationGracePeriodSeconds", "model TestSetDefaultsPod"},
	}
}

func nodeDefaults() []Entry {
	const l = "node lifecycle and pod GC"
	return []Entry{
		{l, "Node monitor period", nodelifecycle.DefaultNodeMonitorPeriod, "5 s",
			kcmFlagSrc("--node-monitor-period"), "nodes/controllers/nodelifecycle DefaultNodeMonitorPeriod", lifecycleCfg},
		{l, "Node monitor grace period (50 s since 1.32)", nodelifecycle.DefaultNodeMonitorGracePeriod, "50 s",
			kcmFlagSrc("--node-monitor-grace-period"), "nodes/controllers/nodelifecycle DefaultNodeMonitorGracePeriod", lifecycleCfg},
		{l, "Node startup grace period", nodelifecycle.DefaultNodeStartupGracePeriod, "1 min",
			kcmFlagSrc("--node-startup-grace-period"), "nodes/controllers/nodelifecycle DefaultNodeStartupGracePeriod", lifecycleCfg},
		{l, "Node eviction rate (nodes/s)", nodelifecycle.DefaultNodeEvictionRate, "0.1",
			kcmFlagSrc("--node-eviction-rate"), "nodes/controllers/nodelifecycle DefaultNodeEvictionRate", lifecycleCfg},
		{l, "Secondary node eviction rate (nodes/s)", nodelifecycle.DefaultSecondaryNodeEvictionRate, "0.01",
			kcmFlagSrc("--secondary-node-eviction-rate"), "nodes/controllers/nodelifecycle DefaultSecondaryNodeEvictionRate", lifecycleCfg},
		{l, "Large cluster size threshold", nodelifecycle.DefaultLargeClusterSizeThreshold, "50",
			kcmFlagSrc("--large-cluster-size-threshold"), "nodes/controllers/nodelifecycle DefaultLargeClusterSizeThreshold", lifecycleCfg},
		{l, "Unhealthy zone threshold", nodelifecycle.DefaultUnhealthyZoneThreshold, "0.55",
			kcmFlagSrc("--unhealthy-zone-threshold"), "nodes/controllers/nodelifecycle DefaultUnhealthyZoneThreshold", lifecycleCfg},
		{l, "not-ready NoExecute toleration", seconds(model.DefaultNotReadyTolerationSeconds), "5 min",
			tolerSrc + "defaultNotReadyTolerationSeconds (--default-not-ready-toleration-seconds)", "model DefaultNotReadyTolerationSeconds", "model TestAddDefaultTolerations"},
		{l, "unreachable NoExecute toleration", seconds(model.DefaultUnreachableTolerationSeconds), "5 min",
			tolerSrc + "defaultUnreachableTolerationSeconds (--default-unreachable-toleration-seconds)", "model DefaultUnreachableTolerationSeconds", "model TestAddDefaultTolerations"},
		{l, "Pod GC check period", podgc.DefaultCheckPeriod, "20 s",
			k8s + "pkg/controller/podgc/gc_controller.go gcCheckPeriod", "nodes/controllers/podgc DefaultCheckPeriod", ""},
		{l, "Pod GC quarantine of a gone node", podgc.DefaultQuarantineTime, "40 s",
			k8s + "pkg/controller/podgc/gc_controller.go quarantineTime", "nodes/controllers/podgc DefaultQuarantineTime", "nodes/controllers/podgc TestPodsOfAGoneNodeAreDeletedAfterTheQuarantine"},
		{l, "Pod GC terminated-pod threshold", podgc.DefaultTerminatedPodThreshold, "12500",
			k8s + "cmd/kube-controller-manager --terminated-pod-gc-threshold (pkg/controller/podgc/config/v1alpha1 defaults)", "nodes/controllers/podgc DefaultTerminatedPodThreshold (set through nodes/controllers/manager Config.TerminatedPodThreshold)",
			"nodes/controllers/podgc TestTerminatedPodThresholdDefault, nodes/controllers/manager TestTerminatedPodThresholdReachesPodGC"},
	}
}

// kcmFlagSrc is the source of a kube-controller-manager flag's default:
// the flag, whose defining file was not confirmed.
func kcmFlagSrc(flag string) string {
	return k8s + "kube-controller-manager flag " + flag + " (flag default; the defining file was not confirmed)"
}
