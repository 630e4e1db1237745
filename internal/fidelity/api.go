package fidelity

import (
	"github.com/kubesim/kubesim/nodes/apiserver"
)

// apiSrc prefixes the sources in k8s.io/apiserver.
const apiSrc = "kubernetes/kubernetes v1.34 staging/src/k8s.io/apiserver/"

func apiDefaults() []Entry {
	const l = "API server"
	return []Entry{
		{l, "Watch cache: age of the events kept", apiserver.DefaultWatchCacheWindow, "75 s",
			apiSrc + "pkg/storage/cacher/watch_cache.go (events kept while younger than 75 s: the bookmark frequency + 15 s; constant name not confirmed for 1.34)", "nodes/apiserver DefaultWatchCacheWindow", ""},
		{l, "Wait for a fresh enough cache before 504", apiserver.DefaultFreshnessTimeout, "3 s",
			apiSrc + "pkg/storage/cacher/watch_cache.go blockTimeout", "nodes/apiserver DefaultFreshnessTimeout", "nodes/apiserver TestReadAtRVWaitsForTheCache"},
		{l, "etcd compaction interval", apiserver.DefaultCompactionInterval, "5 min",
			apiSrc + "pkg/server/options/etcd.go --etcd-compaction-interval (storagebackend DefaultCompactInterval)", "nodes/apiserver DefaultCompactionInterval", ""},
	}
}
