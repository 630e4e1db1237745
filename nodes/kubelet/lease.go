package kubelet

import (
	"time"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// The node lease controller, as component-helpers' lease controller: it
// renews kube-node-lease/<node> every RenewInterval (jittered by 4%,
// counted from the end of the previous sync), updating optimistically from
// the lease it last wrote and falling back to a Get (or a Create) on
// failure.
const (
	// leaseMaxUpdateRetries is maxUpdateRetries: updates per sync.
	leaseMaxUpdateRetries = 5
	// leaseInitialBackoff and leaseMaxBackoff bound backoffEnsureLease:
	// 200 ms doubling to 7 s.
	leaseInitialBackoff = 200 * time.Millisecond
	leaseMaxBackoff     = 7 * time.Second
)

// leaseState is the lease controller's memory.
type leaseState struct {
	latest *model.Lease // the lease as last written
}

// startLease runs the first sync at once.
func (p *process) startLease() { p.syncLease() }

func (p *process) scheduleLease() {
	p.after(jittered(p.cfg.RenewInterval, p.leaseRnd), "kubelet-lease", p.syncLease)
}

func (p *process) syncLease() {
	if p.lease.latest != nil {
		p.retryUpdateLease(p.lease.latest, 0, func(ok bool) {
			if ok {
				p.scheduleLease()
				return
			}
			p.ensureThenRenew()
		})
		return
	}
	p.ensureThenRenew()
}

// ensureThenRenew gets (or creates) the lease, then renews it.
func (p *process) ensureThenRenew() {
	p.backoffEnsureLease(func(lease *model.Lease, created bool) {
		p.lease.latest = lease
		if created {
			p.scheduleLease()
			return
		}
		p.retryUpdateLease(lease, 0, func(bool) { p.scheduleLease() })
	})
}

// backoffEnsureLease tries ensureLease until it succeeds, waiting 200 ms,
// 400 ms, ... at most 7 s between tries.
func (p *process) backoffEnsureLease(done func(lease *model.Lease, created bool)) {
	sleep := leaseInitialBackoff / 2
	var attempt func()
	attempt = func() {
		p.ensureLease(func(lease *model.Lease, created bool, err error) {
			if err == nil {
				done(lease, created)
				return
			}
			sleep = min(2*sleep, leaseMaxBackoff)
			p.after(sleep, "kubelet-lease-backoff", attempt)
		})
	}
	attempt()
}

// ensureLease reads the lease, creating it when missing.
func (p *process) ensureLease(done func(lease *model.Lease, created bool, err error)) {
	leases := p.hbClient.Leases(model.NodeLeaseNamespace)
	leases.Get(p.cfg.Node, client.GetOptions{}, func(obj model.Object, err error) {
		if p.stopped {
			return
		}
		switch lease, ok := obj.(*model.Lease); {
		case err == nil && ok:
			done(lease, false, nil)
		case client.IsNotFound(err):
			leases.Create(p.newLease(nil), func(obj model.Object, err error) {
				if p.stopped {
					return
				}
				lease, ok := obj.(*model.Lease)
				if err != nil || !ok {
					done(nil, false, err)
					return
				}
				p.heartbeat()
				done(lease, true, nil)
			})
		default:
			done(nil, false, err)
		}
	})
}

// retryUpdateLease renews from base, up to leaseMaxUpdateRetries times; a
// conflict reads the lease afresh first.
func (p *process) retryUpdateLease(base *model.Lease, try int, done func(ok bool)) {
	if try >= leaseMaxUpdateRetries {
		done(false)
		return
	}
	p.hbClient.Leases(model.NodeLeaseNamespace).Update(p.newLease(base), func(obj model.Object, err error) {
		if p.stopped {
			return
		}
		if lease, ok := obj.(*model.Lease); err == nil && ok {
			p.lease.latest = lease
			p.heartbeat()
			done(true)
			return
		}
		if client.IsConflict(err) {
			p.backoffEnsureLease(func(lease *model.Lease, _ bool) { p.retryUpdateLease(lease, try+1, done) })
			return
		}
		p.retryUpdateLease(base, try+1, done)
	})
}

// newLease is base (or a new lease) held by the node and renewed now,
// owned by the Node once its UID is known.
func (p *process) newLease(base *model.Lease) *model.Lease {
	var l *model.Lease
	if base != nil {
		l = base.DeepCopy()
	} else {
		l = &model.Lease{ObjectMeta: model.ObjectMeta{Name: p.cfg.Node, Namespace: model.NodeLeaseNamespace}}
	}
	l.Spec.HolderIdentity = model.Ptr(p.cfg.Node)
	l.Spec.LeaseDurationSeconds = model.Ptr(int32(p.cfg.LeaseDuration / time.Second))
	l.Spec.RenewTime = model.Ptr(model.Time(p.h.WallClock()))
	if len(l.OwnerReferences) == 0 && p.node.uid != "" {
		l.OwnerReferences = []model.OwnerReference{{APIVersion: "v1", Kind: model.KindNode, Name: p.cfg.Node, UID: p.node.uid}}
	}
	return l
}

// heartbeat traces an acknowledged renewal.
func (p *process) heartbeat() {
	p.lastRenew = p.h.Now()
	p.h.Emit(&spoketrace.NodeHeartbeat{Node: p.cfg.Node})
}
