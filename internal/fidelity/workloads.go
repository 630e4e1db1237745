package fidelity

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/controllers/deployment"
	"github.com/kubesim/kubesim/nodes/controllers/endpointslice"
	"github.com/kubesim/kubesim/nodes/controllers/gc"
	"github.com/kubesim/kubesim/nodes/controllers/replicaset"
	"github.com/kubesim/kubesim/nodes/scheduler"
)

// The sources of the scheduler's and the workload controllers' defaults.
const (
	schedCfg   = k8s + "pkg/scheduler/apis/config/v1/defaults.go SetDefaults_KubeSchedulerConfiguration"
	schedQueue = k8s + "pkg/scheduler/internal/queue/scheduling_queue.go (the path the code cites; not confirmed for 1.34)"
	appsSrc    = k8s + "pkg/apis/apps/v1/defaults.go "
	appsTest   = "model TestSetDefaultsApps"
)

func schedulerDefaults() []Entry {
	const l = "scheduler"
	return []Entry{
		{l, "Pod initial backoff", scheduler.DefaultPodInitialBackoff, "1 s",
			schedCfg + " (PodInitialBackoffSeconds: 1)", "nodes/scheduler DefaultPodInitialBackoff", "nodes/scheduler TestConfigDefaults"},
		{l, "Pod max backoff", scheduler.DefaultPodMaxBackoff, "10 s",
			schedCfg + " (PodMaxBackoffSeconds: 10)", "nodes/scheduler DefaultPodMaxBackoff", "nodes/scheduler TestConfigDefaults"},
		{l, "Max time among unschedulable pods", scheduler.DefaultPodMaxInUnschedulablePodsDuration, "5 min",
			schedQueue + " DefaultPodMaxInUnschedulablePodsDuration", "nodes/scheduler DefaultPodMaxInUnschedulablePodsDuration", "nodes/scheduler TestConfigDefaults"},
		{l, "Unschedulable pods flush", scheduler.UnschedulableFlushInterval, "30 s",
			schedQueue + " Run: flushUnschedulablePodsLeftover every 30 s", "nodes/scheduler UnschedulableFlushInterval", ""},
		{l, "Assumed pod TTL (0: never expires)", time.Duration(scheduler.DefaultAssumedPodTTL), "0",
			k8s + "pkg/scheduler/scheduler.go durationToExpireAssumedPod (0 since 1.23)", "nodes/scheduler DefaultAssumedPodTTL", ""},
	}
}

func workloadDefaults() []Entry {
	const l = "workloads"
	return []Entry{
		{l, "Deployment maxSurge", model.DefaultMaxSurge, "25%", appsSrc + "SetDefaults_Deployment", "model DefaultMaxSurge", appsTest},
		{l, "Deployment maxUnavailable", model.DefaultMaxUnavailable, "25%", appsSrc + "SetDefaults_Deployment", "model DefaultMaxUnavailable", appsTest},
		{l, "Deployment revisionHistoryLimit", model.DefaultRevisionHistoryLimit, "10", appsSrc + "SetDefaults_Deployment", "model DefaultRevisionHistoryLimit", appsTest},
		{l, "Deployment progressDeadlineSeconds", seconds(model.DefaultProgressDeadlineSeconds), "10 min", appsSrc + "SetDefaults_Deployment", "model DefaultProgressDeadlineSeconds", appsTest},
		{l, "Deployment and ReplicaSet replicas", model.DefaultReplicas, "1", appsSrc + "SetDefaults_Deployment, SetDefaults_ReplicaSet", "model DefaultReplicas", appsTest},
		{l, "Pod template hash label", deployment.DefaultDeploymentUniqueLabelKey, "pod-template-hash",
			"kubernetes/api v0.34 apps/v1/types.go DefaultDeploymentUniqueLabelKey", "nodes/controllers/deployment DefaultDeploymentUniqueLabelKey", ""},
		{l, "Deployment controller workers", deployment.DefaultWorkers, "5",
			kcmFlagSrc("--concurrent-deployment-syncs"), "nodes/controllers/deployment DefaultWorkers", ""},
		{l, "ReplicaSet burst replicas", replicaset.DefaultBurstReplicas, "500",
			k8s + "pkg/controller/replicaset/replica_set.go BurstReplicas", "nodes/controllers/replicaset DefaultBurstReplicas", ""},
		{l, "ReplicaSet slow start: first batch", replicaset.SlowStartInitialBatchSize, "1",
			k8s + "pkg/controller/controller_utils.go SlowStartInitialBatchSize", "nodes/controllers/replicaset SlowStartInitialBatchSize", "nodes/controllers/replicaset TestScaleUpInSlowStartBatches"},
		{l, "ReplicaSet controller workers", replicaset.Workers, "5",
			kcmFlagSrc("--concurrent-replicaset-syncs"), "nodes/controllers/replicaset Workers", ""},
		{l, "Garbage collector workers", gc.Workers, "20",
			kcmFlagSrc("--concurrent-gc-syncs"), "nodes/controllers/gc Workers", ""},
		{l, "EndpointSlice controller workers", endpointslice.Workers, "5",
			kcmFlagSrc("--concurrent-service-endpoint-syncs"), "nodes/controllers/endpointslice Workers", ""},
		{l, "Endpoint updates batch period", endpointslice.DefaultEndpointUpdatesBatchPeriod, "0",
			kcmFlagSrc("--endpoint-updates-batch-period"), "nodes/controllers/endpointslice DefaultEndpointUpdatesBatchPeriod", ""},
		{l, "Max endpoints per EndpointSlice (--max-endpoints-per-slice, 1 to 1000)", model.MaxEndpointsPerSlice, "100",
			k8s + "pkg/controller/endpointslice/config/v1alpha1/defaults.go RecommendedDefaultEndpointSliceControllerConfiguration; the flag and its bounds: cmd/kube-controller-manager/app/options/endpointslicecontroller.go",
			"model MaxEndpointsPerSlice (set through scenarios StackTopology.MaxEndpointsPerSlice and nodes/controllers/manager Config.MaxEndpointsPerSlice)",
			"nodes/controllers/endpointslice TestSlicesOfAtMostMax, nodes/controllers/manager TestMaxEndpointsPerSliceReachesEndpointSlice"},
		{l, "EndpointSlice sync retries before a Service is dropped", endpointslice.MaxRetries, "15",
			k8s + "pkg/controller/endpointslice/endpointslice_controller.go maxRetries", "nodes/controllers/endpointslice MaxRetries", ""},
		{l, "EndpointSlice per-Service backoff: first", endpointslice.SyncBackOff, "1 s",
			k8s + "pkg/controller/endpointslice/endpointslice_controller.go defaultSyncBackOff", "nodes/controllers/endpointslice SyncBackOff", ""},
		{l, "EndpointSlice per-Service backoff: cap", endpointslice.MaxSyncBackOff, "1000 s",
			k8s + "pkg/controller/endpointslice/endpointslice_controller.go maxSyncBackOff", "nodes/controllers/endpointslice MaxSyncBackOff", ""},
		{l, "Delay before syncing a Service after a foreign slice change", endpointslice.EndpointSliceChangeMinSyncDelay, "1 s",
			k8s + "pkg/controller/endpointslice/endpointslice_controller.go endpointSliceChangeMinSyncDelay", "nodes/controllers/endpointslice EndpointSliceChangeMinSyncDelay", "nodes/controllers/endpointslice TestForeignSliceChangeIsUndone"},
	}
}
