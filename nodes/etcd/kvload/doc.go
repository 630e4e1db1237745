// Package kvload is the etcd KV workload: client processes that run random
// get, put, compare-and-swap and delete operations and record each as an
// etcdtrace.Call and etcdtrace.Return, a resuming watcher that records every
// watch response it receives, and a compactor that compacts like
// kube-apiserver does. The linearizability and watch checks read what these
// processes emit.
//
// Client and watcher names in the trace are the configured name on a host's
// first incarnation and "<name>#<incarnation>" after a restart, so that the
// (client, op) and (watcher, stream) pairs stay unique across restarts.
package kvload

import (
	"strconv"

	"github.com/kubesim/kubesim/sim"
)

// traceName is the name a process uses in the trace on this incarnation.
func traceName(h *sim.Host, name string) string {
	if name == "" {
		name = h.Name()
	}
	if inc := h.Incarnation(); inc > 1 {
		return name + "#" + strconv.FormatUint(inc, 10)
	}
	return name
}
