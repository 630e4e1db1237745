package apiserver

import (
	"strconv"

	"github.com/kubesim/kubesim/model"
)

// resourceInfo describes a served resource (model's registry entry).
type resourceInfo = model.Resource

// registryPrefix is the root of every stored object.
const registryPrefix = "/registry/"

// resourcePrefix is "/registry/<resource>/", the prefix of every object of
// res; for a custom kind "/registry/<group>/<plural>/", as the
// apiextensions API server's storage prefix is group + "/" + resource
// (k8s.io/apiserver pkg/server/options/etcd.go,
// SimpleStorageFactory.ResourcePrefix, which
// k8s.io/apiextensions-apiserver's server uses for custom resources).
func resourcePrefix(res resourceInfo) string {
	if res.Custom != nil {
		return registryPrefix + res.Group + "/" + res.Name + "/"
	}
	return registryPrefix + res.Name + "/"
}

// listPrefix is the prefix a list or watch of res in ns covers: the
// namespace's objects, or all of them when ns is "" or res is
// cluster-scoped.
func listPrefix(res resourceInfo, ns string) string {
	if !res.Namespaced || ns == "" {
		return resourcePrefix(res)
	}
	return resourcePrefix(res) + ns + "/"
}

// storageKey is "/registry/<resource>/<namespace>/<name>", or
// "/registry/<resource>/<name>" for cluster-scoped kinds.
func storageKey(res resourceInfo, ns, name string) string {
	if !res.Namespaced {
		return resourcePrefix(res) + name
	}
	return resourcePrefix(res) + ns + "/" + name
}

// traceKey is the key apitrace uses: "namespace/name", or "name".
func traceKey(res resourceInfo, ns, name string) string {
	if !res.Namespaced {
		return name
	}
	return ns + "/" + name
}

// prefixEnd is the etcd range end that covers every key with prefix p.
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return "\x00"
}

// formatRV prints a revision as a resourceVersion.
func formatRV(rev int64) string { return strconv.FormatInt(rev, 10) }

// parseRV parses a non-empty resourceVersion.
func parseRV(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}
