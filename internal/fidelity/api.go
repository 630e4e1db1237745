package fidelity

import (
	"github.com/kubesim/kubesim/nodes/apiserver"
)

// apiSrc prefixes the sources in k8s.io/apiserver.
const apiSrc = "kubernetes/kubernetes v1.34 staging/src/k8s.io/apiserver/"

func apiDefaults() []Entry {
	const l = "API server"
	return []Entry{
		{l, "Watch cache: history its ring sizes itself for", apiserver.DefaultEventFreshDuration, "75 s",
			apiSrc + "pkg/storage/cacher/watch_cache.go eventFreshDuration", "nodes/apiserver DefaultEventFreshDuration", "nodes/apiserver TestEventRingResizes"},
		{l, "Watch cache: fewest events its ring holds", apiserver.DefaultWatchCacheMinCapacity, "100",
			apiSrc + "pkg/storage/cacher/watch_cache.go defaultLowerBoundCapacity", "nodes/apiserver DefaultWatchCacheMinCapacity", "nodes/apiserver TestEventRingResizes"},
		{l, "Watch cache: most events its ring holds", apiserver.DefaultWatchCacheMaxCapacity, "102400",
			apiSrc + "pkg/storage/cacher/watch_cache.go defaultUpperBoundCapacity", "nodes/apiserver DefaultWatchCacheMaxCapacity", "nodes/apiserver TestEventRingResizes"},
		{l, "Watch cache: time between bookmarks", apiserver.DefaultBookmarkFrequency, "1 min",
			apiSrc + "pkg/storage/cacher/cacher.go defaultBookmarkFrequency", "nodes/apiserver DefaultBookmarkFrequency", "nodes/apiserver TestBookmarksAboutEveryMinute"},
		{l, "Wait for a fresh enough cache before 504", apiserver.DefaultFreshnessTimeout, "3 s",
			apiSrc + "pkg/storage/cacher/watch_cache.go blockTimeout", "nodes/apiserver DefaultFreshnessTimeout", "nodes/apiserver TestReadAtRVWaitsForTheCache"},
		{l, "etcd compaction interval", apiserver.DefaultCompactionInterval, "5 min",
			apiSrc + "pkg/server/options/etcd.go --etcd-compaction-interval (storagebackend DefaultCompactInterval)", "nodes/apiserver DefaultCompactionInterval", ""},
		{l, "Service cluster IP range (--service-cluster-ip-range as kubeadm sets it)", apiserver.DefaultServiceCIDR.String(), "10.96.0.0/12",
			"kubernetes/kubernetes v1.34 cmd/kubeadm/app/apis/kubeadm/v1beta4/defaults.go DefaultServicesSubnet", "nodes/apiserver DefaultServiceCIDR", "nodes/apiserver TestClusterIPAllocation"},
	}
}
