package checks

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// DefaultAPIRecoversBound is how long after the last fault and the last
// operator action the API must serve again: an etcd request the API
// servers sent before it ends within their etcd request timeout (5 s,
// apiserver.DefaultEtcdRequestTimeout), and a member that lost its leader
// (a removed or powered-off leader) elects one within two election
// timeouts (2 s); the rest is margin.
const DefaultAPIRecoversBound = 10 * time.Second

// APIRecovers checks that the API serves again once the faults and the
// operator's work are over: every API call (apitrace.Call) invoked at
// least the bound after the last fault event and the last operator action
// (an etcdtrace.RecoveryStep or MemberCall) ends with an answer that is no
// server error: a 2xx, or a 4xx the request earned (a conflict, a
// refusal). A 5xx (etcd unreachable, a timeout) or no answer (code 0) is
// an offense, and so is a run in which no call was invoked that late:
// nothing would then show that the API serves. It judges availability by
// what the clients saw, not by any configuration: API servers whose etcd
// endpoints name no live member fail it.
type APIRecovers struct {
	bound  time.Duration
	last   sim.Time // the last fault or operator action
	calls  map[callID]invokedCall
	served []sim.Time // when each call answered without a server error was invoked
	failed []failedCall
}

// invokedCall is a call in flight: when it was invoked, and what it asked.
type invokedCall struct {
	at        sim.Time
	verb, key string
}

// failedCall is a call that ended with a server error or no answer.
type failedCall struct {
	at     sim.Time
	seq    uint64
	call   invokedCall
	client string
	op     uint64
	code   int
	reason string
	server string
}

// NewAPIRecovers judges the calls invoked bound after the last fault and
// operator action (DefaultAPIRecoversBound when bound <= 0).
func NewAPIRecovers(bound time.Duration) *APIRecovers {
	if bound <= 0 {
		bound = DefaultAPIRecoversBound
	}
	return &APIRecovers{bound: bound, calls: map[callID]invokedCall{}}
}

// Name implements Check.
func (c *APIRecovers) Name() string { return "api-recovers" }

// Observe implements Check.
func (c *APIRecovers) Observe(e *sim.Event) {
	if e.Kind == sim.KindFault {
		c.last = max(c.last, e.At)
		return
	}
	switch d := e.Data.(type) {
	case *etcdtrace.RecoveryStep, *etcdtrace.MemberCall:
		c.last = max(c.last, e.At)
	case *apitrace.Call:
		c.calls[callID{d.Client, d.Op}] = invokedCall{at: e.At, verb: d.Verb, key: d.Key}
	case *apitrace.Return:
		call, ok := takeCall(c.calls, d.Client, d.Op)
		if !ok {
			return
		}
		if d.Code != 0 && d.Code < 500 {
			c.served = append(c.served, call.at)
			return
		}
		c.failed = append(c.failed, failedCall{at: e.At, seq: e.Seq, call: call, client: d.Client, op: d.Op,
			code: d.Code, reason: d.Reason, server: d.Server})
	}
}

// Finish implements Check.
func (c *APIRecovers) Finish() Result {
	from := c.last.Add(c.bound)
	judged := 0
	for _, at := range c.served {
		if at >= from {
			judged++
		}
	}
	var rec earliestOffenses
	for _, f := range c.failed {
		if f.call.at < from {
			continue
		}
		judged++
		what := fmt.Sprintf("code %d", f.code)
		if f.code == 0 {
			what = "no answer"
		}
		rec.add(f.at, f.seq, "%s/%d %s %s invoked at %v, %v after the last fault or operator action (at %v), ended with %s %s from %q",
			f.client, f.op, f.call.verb, f.call.key, f.call.at, f.call.at.Sub(c.last), c.last, what, f.reason, f.server)
	}
	if judged == 0 {
		return Result{Name: c.Name(), OK: false, Detail: fmt.Sprintf("no API call was invoked %v after the last fault or operator action (at %v): nothing shows that the API serves", c.bound, c.last)}
	}
	return rec.result(c.Name(), fmt.Sprintf("%d API call(s) invoked from %v (%v after the last fault or operator action) answered without a server error", judged, from, c.bound))
}
