package controllers

import (
	"time"

	"github.com/kubesim/kubesim/nodes/client/cache"
)

// CacheSyncPoll is how often a controller checks that its informers have
// synced before it starts its workers: client-go's cache.WaitForCacheSync
// polls every 100 ms (k8s.io/client-go/tools/cache, syncedPollPeriod).
const CacheSyncPoll = 100 * time.Millisecond

// WaitForCacheSync calls start once every informer of infs has synced, as a
// controller's Run does with cache.WaitForCacheSync, but without blocking:
// it checks now, then every CacheSyncPoll on a timer named
// name+"-cache-sync". It gives up for good once stopped reports true, so
// that a controller stopped while it waits never starts.
func (ctx *Context) WaitForCacheSync(name string, stopped func() bool, start func(), infs ...*cache.Informer) {
	var try func()
	try = func() {
		if stopped() {
			return
		}
		for _, inf := range infs {
			if !inf.HasSynced() {
				ctx.Host.After(CacheSyncPoll, name+"-cache-sync", try)
				return
			}
		}
		start()
	}
	try()
}
