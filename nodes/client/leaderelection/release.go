package leaderelection

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// release gives up the lease if this candidate last observed itself as
// its holder, then calls done; as client-go's release
// (tools/leaderelection/leaderelection.go, LeaderElector.release, v0.34):
//
//   - it first reads the lease (LeaseLock.Get, which caches the fresh
//     object, so the update below carries its resourceVersion); a failed
//     read, NotFound included, gives up;
//   - it then checks IsLeader, which compares the last observed record's
//     holder, not the one just read: a leader that lost its lease without
//     seeing it taken (its renewals timed out) still releases, and its
//     update, made with the fresh resourceVersion, overwrites the new
//     holder's record, as client-go's does;
//   - the released record has no holder, LeaseDurationSeconds 1, renew and
//     acquire times now, and the read record's LeaderTransitions;
//   - the read and the update share one RenewDeadline timeout.
func (le *LeaderElector) release(done func()) {
	ended := false
	var deadline *sim.Timer
	end := func() {
		if ended {
			return
		}
		ended = true
		deadline.Stop()
		done()
	}
	deadline = le.h.After(le.cfg.RenewDeadline, "leaderelection-release-deadline", end)
	le.leases.Get(le.cfg.Name, client.GetOptions{}, func(obj model.Object, err error) {
		if ended {
			return
		}
		lease, ok := obj.(*model.Lease)
		if err != nil || !ok {
			end()
			return
		}
		le.lease = lease
		if le.observed.HolderIdentity != le.cfg.Identity {
			end() // not the leader by what it last saw: nothing to release
			return
		}
		wall := model.MicroTime(le.h.WallClock())
		rec := Record{LeaseDurationSeconds: 1, RenewTime: wall, AcquireTime: wall,
			LeaderTransitions: recordOf(lease).LeaderTransitions}
		le.update(rec, func(err error) {
			if ended {
				return
			}
			if err == nil {
				le.setObserved(rec)
			}
			end()
		})
	})
}
