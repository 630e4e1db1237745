package controllers

import "github.com/kubesim/kubesim/nodes/client/workqueue"

// Worker returns what a controller's workers run on each key of its queue
// q (workqueue.Queue.Run): sync, guarded by stopped, so that a controller
// stopped meanwhile neither starts a sync nor reports the outcome of one
// that was running. With maxRetries > 0, a key whose sync failed that many
// times in a row is reported done without error, which forgets it, until
// its next event: the real controllers' handleErr, which stops requeuing
// it after maxRetries. Every queue-driven controller shares this loop.
func Worker(q *workqueue.Queue, stopped func() bool, maxRetries int, sync func(key string, done func(error))) func(key string, done func(error)) {
	return func(key string, done func(error)) {
		if stopped() {
			return
		}
		sync(key, func(err error) {
			if stopped() {
				return
			}
			if err != nil && maxRetries > 0 && q.NumRequeues(key) >= maxRetries {
				err = nil
			}
			done(err)
		})
	}
}
