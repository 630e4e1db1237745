package leaderelection

import (
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// tryAcquireOrRenew is client-go's: it creates the lease, or takes it over
// when the observed record has expired, or renews it when held; done gets
// whether this candidate holds the lease afterwards.
//
// Like client-go it judges expiry by its own clock only: the record's
// times are the writer's wall clock, but expiry is when the record was
// observed here (observedTime, monotonic) plus its duration, so that a
// skewed or stepped clock elsewhere does not matter; a clock that runs at
// another rate does.
func (le *LeaderElector) tryAcquireOrRenew(done func(ok bool)) {
	now := le.h.Now()
	rec := le.record()

	// Fast path: the leader renews its cached lease without reading it.
	if le.IsLeader() && le.isLeaseValid(now) && le.lease != nil {
		rec.AcquireTime = le.observed.AcquireTime
		rec.LeaderTransitions = le.observed.LeaderTransitions
		le.update(rec, func(err error) {
			if err == nil {
				le.setObserved(rec)
				done(true)
				return
			}
			le.slowPath(now, done) // "falling back to slow path"
		})
		return
	}
	le.slowPath(now, done)
}

// record is this candidate's record as of now, stamped with its wall
// clock.
func (le *LeaderElector) record() Record {
	wall := model.MicroTime(le.h.WallClock())
	return Record{HolderIdentity: le.cfg.Identity, LeaseDurationSeconds: int32(le.cfg.LeaseDuration.Seconds()),
		RenewTime: wall, AcquireTime: wall}
}

func (le *LeaderElector) slowPath(now sim.Time, done func(bool)) {
	rec := le.record()
	le.leases.Get(le.cfg.Name, client.GetOptions{}, func(obj model.Object, err error) {
		if err != nil {
			if !client.IsNotFound(err) {
				done(false)
				return
			}
			lease := &model.Lease{Spec: rec.spec()}
			lease.Name, lease.Namespace = le.cfg.Name, le.cfg.Namespace
			le.leases.Create(lease, func(obj model.Object, err error) {
				if err != nil {
					done(false)
					return
				}
				le.lease = obj.(*model.Lease)
				le.setObserved(rec)
				done(true)
			})
			return
		}
		lease, ok := obj.(*model.Lease)
		if !ok {
			done(false)
			return
		}
		le.lease = lease
		old := recordOf(lease)
		if old != le.observed {
			le.setObserved(old)
		}
		if old.HolderIdentity != "" && le.isLeaseValid(now) && !le.IsLeader() {
			done(false)
			return
		}
		if le.IsLeader() {
			rec.AcquireTime = old.AcquireTime
			rec.LeaderTransitions = old.LeaderTransitions
		} else {
			rec.LeaderTransitions = old.LeaderTransitions + 1
		}
		le.update(rec, func(err error) {
			if err != nil {
				done(false)
				return
			}
			le.setObserved(rec)
			done(true)
		})
	})
}

// update writes rec into the cached lease, conditional on its
// resourceVersion, as LeaseLock.Update.
func (le *LeaderElector) update(rec Record, done func(error)) {
	lease := le.lease.DeepCopy()
	lease.Spec = rec.spec()
	le.leases.Update(lease, func(obj model.Object, err error) {
		if err == nil {
			le.lease = obj.(*model.Lease)
		}
		done(err)
	})
}
