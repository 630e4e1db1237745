package checks

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// KVAgreement checks that the members' stores agree at the end of a run,
// from etcdtrace.KVHash events: the last report of each member must carry
// the same revision, compact revision and hash. This is the end state of
// Raft's state machine safety (every member applies the same commands in
// the same order, so their stores are equal) and what etcd's own
// corruption check compares across members with HashKV
// (https://etcd.io/docs/v3.5/op-guide/data_corruption/). A scenario asks
// live members for a KVHash once its settle window has passed, so a
// member that lags then has not converged, which is a failure too.
//
// With no KVHash report at all the check fails ("no KVHash reports"),
// because a scenario that runs it but never asks for hashes has proved
// nothing; AllowNoKVHash turns that into a pass.
type KVAgreement struct {
	allowNone bool
	last      map[string]kvReport
	members   []string // in order of first report
	reports   int
}

// kvReport is a member's last KVHash and where it was seen.
type kvReport struct {
	h   etcdtrace.KVHash
	at  sim.Time
	seq uint64
}

// KVAgreementOption configures NewKVAgreement.
type KVAgreementOption func(*KVAgreement)

// AllowNoKVHash makes the check pass when no member reported a KVHash.
func AllowNoKVHash() KVAgreementOption { return func(c *KVAgreement) { c.allowNone = true } }

// NewKVAgreement returns the "kv-agreement" check.
func NewKVAgreement(opts ...KVAgreementOption) *KVAgreement {
	c := &KVAgreement{last: map[string]kvReport{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Name implements Check.
func (c *KVAgreement) Name() string { return "kv-agreement" }

// Observe implements Check.
func (c *KVAgreement) Observe(e *sim.Event) {
	if d, ok := e.NodeData().(*etcdtrace.KVHash); ok {
		if _, seen := c.last[d.Member]; !seen {
			c.members = append(c.members, d.Member)
		}
		c.last[d.Member] = kvReport{h: *d, at: e.At, seq: e.Seq}
		c.reports++
	}
}

// kvFingerprint is what members must agree on.
type kvFingerprint struct {
	rev, compact int64
	hash         uint64
}

func (f kvFingerprint) String() string {
	return fmt.Sprintf("rev=%d compact=%d hash=%x", f.rev, f.compact, f.hash)
}

// Finish implements Check. The reference is the fingerprint most members
// share (ties go to the first member to report); every other member is an
// offense.
func (c *KVAgreement) Finish() Result {
	if len(c.members) == 0 {
		if c.allowNone {
			return Result{Name: c.Name(), OK: true, Detail: "no KVHash reports (allowed)"}
		}
		return Result{Name: c.Name(), OK: false, Detail: "no KVHash reports: no member reported its store hash"}
	}
	var groups []kvFingerprint
	count := map[kvFingerprint][]string{}
	for _, m := range c.members {
		r := c.last[m].h
		f := kvFingerprint{r.Rev, r.CompactRev, r.Hash}
		if _, ok := count[f]; !ok {
			groups = append(groups, f)
		}
		count[f] = append(count[f], m)
	}
	ref := groups[0]
	for _, f := range groups[1:] {
		if len(count[f]) > len(count[ref]) {
			ref = f
		}
	}
	var rec earliestOffenses
	for _, m := range c.members {
		r := c.last[m]
		f := kvFingerprint{r.h.Rev, r.h.CompactRev, r.h.Hash}
		if f != ref {
			rec.add(r.at, r.seq, "kv agreement: member %s has %v (applied %d), but %s have %v",
				m, f, r.h.Applied, strings.Join(count[ref], ","), ref)
		}
	}
	return rec.result(c.Name(), fmt.Sprintf("%d members agree on %v (%d reports)", len(c.members), ref, c.reports))
}

var _ Check = (*KVAgreement)(nil)
