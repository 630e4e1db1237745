package leaderelection

import (
	"time"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/sim"
)

// Record is a leader election record, as resourcelock.LeaderElectionRecord.
type Record struct {
	HolderIdentity       string
	LeaseDurationSeconds int32
	AcquireTime          model.MicroTime
	RenewTime            model.MicroTime
	LeaderTransitions    int32
}

func recordOf(l *model.Lease) Record {
	s := l.Spec
	return Record{
		HolderIdentity:       model.Deref(s.HolderIdentity, ""),
		LeaseDurationSeconds: model.Deref(s.LeaseDurationSeconds, 0),
		AcquireTime:          model.Deref(s.AcquireTime, 0),
		RenewTime:            model.Deref(s.RenewTime, 0),
		LeaderTransitions:    model.Deref(s.LeaseTransitions, 0),
	}
}

func (r Record) spec() model.LeaseSpec {
	return model.LeaseSpec{
		HolderIdentity:       model.Ptr(r.HolderIdentity),
		LeaseDurationSeconds: model.Ptr(r.LeaseDurationSeconds),
		AcquireTime:          model.Ptr(r.AcquireTime),
		RenewTime:            model.Ptr(r.RenewTime),
		LeaseTransitions:     model.Ptr(r.LeaderTransitions),
	}
}

type phase uint8

const (
	idle phase = iota
	acquiring
	leading
	releasing // renew ended; release() is under way (ReleaseOnCancel)
	stopped
)

// LeaderElector runs one candidate. Make it with NewLeaderElector and start
// it with Run.
type LeaderElector struct {
	cfg    Config
	h      *sim.Host
	leases *client.ResourceClient
	rnd    *sim.Stream

	phase          phase
	gen            uint64 // bumps when a round is abandoned
	lease          *model.Lease
	observed       Record
	observedTime   sim.Time
	reportedLeader string
}

// NewLeaderElector validates cfg (filling in defaults) and makes an elector.
func NewLeaderElector(cfg Config) (*LeaderElector, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	h := cfg.Client.Host()
	return &LeaderElector{cfg: cfg, h: h, leases: cfg.Client.Leases(cfg.Namespace),
		rnd: h.Rand("leaderelection/" + cfg.Namespace + "/" + cfg.Name)}, nil
}

// IsLeader reports whether the last observed record names this candidate.
func (le *LeaderElector) IsLeader() bool {
	return le.observed.HolderIdentity == le.cfg.Identity && le.phase != stopped
}

// GetLeader returns the last observed holder.
func (le *LeaderElector) GetLeader() string { return le.observed.HolderIdentity }

// Run starts acquiring; it returns at once.
func (le *LeaderElector) Run() {
	if le.phase != idle {
		return
	}
	le.phase = acquiring
	le.acquireAttempt()
}

// Stop ends the elector, as cancelling Run's context. A candidate still
// acquiring stops at once; a leader ends its renew loop, which releases the
// lease first when ReleaseOnCancel is set, and OnStoppedLeading is called
// when that is done (Run defers it). A release under way runs on: client-go
// gives it its own context (context.Background), not Run's.
func (le *LeaderElector) Stop() {
	switch le.phase {
	case idle, stopped:
		le.phase = stopped
	case acquiring:
		le.finish()
	case leading:
		le.endRenew()
	}
}

// endRenew is the end of client-go's renew, whether its context was
// cancelled or a renewal round failed (tools/leaderelection/leaderelection.go,
// renew: after wait.Until returns, "if le.config.ReleaseOnCancel {
// le.release() }", then Run's deferred OnStoppedLeading).
func (le *LeaderElector) endRenew() {
	le.gen++ // no more renewal rounds
	if !le.cfg.ReleaseOnCancel {
		le.finish()
		return
	}
	le.phase = releasing
	le.release(le.finish)
}

// finish stops every loop and calls OnStoppedLeading.
func (le *LeaderElector) finish() {
	le.phase = stopped
	le.gen++
	if f := le.cfg.Callbacks.OnStoppedLeading; f != nil {
		f()
	}
}

// acquireAttempt is one step of wait.JitterUntil(tryAcquireOrRenew,
// RetryPeriod, JitterFactor, sliding).
func (le *LeaderElector) acquireAttempt() {
	gen := le.gen
	le.tryAcquireOrRenew(func(ok bool) {
		if le.phase != acquiring || le.gen != gen {
			return
		}
		le.maybeReportTransition()
		if ok {
			le.phase = leading
			if f := le.cfg.Callbacks.OnStartedLeading; f != nil {
				f()
			}
			if le.phase == leading {
				le.renewRound()
			}
			return
		}
		wait := client.Jitter(le.cfg.RetryPeriod, JitterFactor, le.rnd)
		le.h.After(wait, "leaderelection-retry", func() {
			if le.phase == acquiring && le.gen == gen {
				le.acquireAttempt()
			}
		})
	})
}

// renewRound is one run of renew's wait.Until body: poll tryAcquireOrRenew
// every RetryPeriod until it succeeds or RenewDeadline passes.
func (le *LeaderElector) renewRound() {
	le.gen++
	gen := le.gen
	deadline := le.h.After(le.cfg.RenewDeadline, "leaderelection-renew-deadline", func() {
		if le.phase == leading && le.gen == gen && !le.cfg.Ablations.Has(ablation.LeaderNoStepDown) {
			le.endRenew() // failed to renew within the deadline: leadership lost
		}
	})
	var poll func()
	poll = func() {
		le.tryAcquireOrRenew(func(ok bool) {
			if le.phase != leading || le.gen != gen {
				return
			}
			le.maybeReportTransition()
			if ok {
				deadline.Stop()
				if f := le.cfg.Callbacks.OnRenewed; f != nil {
					f()
				}
				le.h.After(le.cfg.RetryPeriod, "leaderelection-renew", func() {
					if le.phase == leading && le.gen == gen {
						le.renewRound()
					}
				})
				return
			}
			le.h.After(le.cfg.RetryPeriod, "leaderelection-renew-retry", func() {
				if le.phase == leading && le.gen == gen {
					poll()
				}
			})
		})
	}
	poll()
}

// isLeaseValid: the observed record has not expired at now, by the local
// monotonic clock since it was observed, as client-go's
// (tools/leaderelection/leaderelection.go, isLeaseValid:
// observedTime.Add(LeaseDuration).After(now), both readings of
// clock.Now() with their monotonic part). The leader-uses-wall-clock
// ablation judges it from the record's renewTime (the holder's wall
// clock) against this host's wall clock instead.
func (le *LeaderElector) isLeaseValid(now sim.Time) bool {
	d := time.Duration(le.observed.LeaseDurationSeconds) * time.Second
	if le.cfg.Ablations.Has(ablation.LeaderUsesWallClock) {
		return sim.Time(le.observed.RenewTime).Add(d) > le.h.WallClock()
	}
	return le.observedTime.Add(d) > now
}

func (le *LeaderElector) setObserved(r Record) {
	le.observed = r
	le.observedTime = le.h.Now()
}

func (le *LeaderElector) maybeReportTransition() {
	if le.observed.HolderIdentity == le.reportedLeader {
		return
	}
	le.reportedLeader = le.observed.HolderIdentity
	if f := le.cfg.Callbacks.OnNewLeader; f != nil {
		f(le.reportedLeader)
	}
}
