package apiserver

import (
	"strings"

	"github.com/kubesim/kubesim/sim"
)

// EtcdServersFile is the file on an API server's host that holds its
// --etcd-servers, one etcd client URL a record: the flag as the static pod
// manifest (/etc/kubernetes/manifests/kube-apiserver.yaml on a kubeadm
// control-plane host) gives it. Boot reads it; without it the replica uses
// Config.Etcd, the endpoints it was built with.
//
// kube-apiserver never learns etcd's membership by itself: its etcd client
// is built from --etcd-servers alone, with no AutoSyncInterval
// (kubernetes, staging/src/k8s.io/apiserver/pkg/storage/storagebackend/
// factory/etcd3.go, newETCD3Client: clientv3.Config{Endpoints:
// c.ServerList, ...}; go.etcd.io/etcd/client/v3 client.go, autoSync, which
// syncs the endpoints only when AutoSyncInterval is set). An operator who
// changes etcd's membership edits the flag on every control-plane host,
// and it takes effect when the process restarts (the kubelet restarts a
// static pod whose manifest changed).
const EtcdServersFile = "kube-apiserver/etcd-servers"

// etcdClientScheme and etcdClientPort frame a member's client URL, as
// --etcd-servers lists them (https://NAME:2379).
const (
	etcdClientScheme = "https://"
	etcdClientPort   = ":2379"
)

// EtcdServerURL returns the client URL of the etcd member on the named
// host, as --etcd-servers lists it.
func EtcdServerURL(host string) string { return etcdClientScheme + host + etcdClientPort }

// SetEtcdServers writes hosts (the etcd members' host names, in the order
// the replica tries them) as the --etcd-servers of the API server on h, as
// an operator edits its manifest, and calls done once the edit is durable.
// The running process keeps its endpoints; the next Boot reads these.
func SetEtcdServers(h *sim.Host, hosts []string, done func()) {
	recs := make([][]byte, len(hosts))
	for i, n := range hosts {
		recs[i] = []byte(EtcdServerURL(n))
	}
	h.Disk().Set(EtcdServersFile, recs...)
	h.Disk().Sync(done)
}

// etcdServers returns the endpoints h's --etcd-servers names, or fallback
// when its host has no EtcdServersFile. A URL whose host the world does
// not know is skipped, as a client skips an endpoint it cannot resolve.
func etcdServers(h *sim.Host, fallback []sim.HostID) []sim.HostID {
	recs := h.Disk().Records(EtcdServersFile)
	if recs == nil {
		return fallback
	}
	eps := make([]sim.HostID, 0, len(recs))
	for _, r := range recs {
		name := strings.TrimSuffix(strings.TrimPrefix(string(r), etcdClientScheme), etcdClientPort)
		if m, ok := h.World().HostByName(name); ok {
			eps = append(eps, m.ID())
		}
	}
	return eps
}
