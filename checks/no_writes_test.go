package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
	"github.com/kubesim/kubesim/sim"
)

func TestNoWritesDuring(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	feed := func(c Check, evs ...sim.Event) Result {
		for i := range evs {
			evs[i].Seq = uint64(i)
			evs[i].Kind = sim.KindNode
			c.Observe(&evs[i])
		}
		return c.Finish()
	}
	win := []Window{{From: sec(10), To: sec(20)}}
	call := func(at float64, op uint64, kind etcdtrace.OpKind) sim.Event {
		return sim.Event{At: sec(at), Data: &etcdtrace.Call{Client: "c", Op: op, Kind: kind, Key: "k"}}
	}
	ret := func(at float64, op uint64, out etcdtrace.Outcome) sim.Event {
		return sim.Event{At: sec(at), Data: &etcdtrace.Return{Client: "c", Op: op, Outcome: out}}
	}
	cases := []struct {
		name string
		evs  []sim.Event
		ok   bool
	}{
		{"writes inside time out", []sim.Event{call(11, 1, etcdtrace.OpPut), ret(16, 1, etcdtrace.OutcomeUnknown)}, true},
		{"a write invoked before the window may finish in it", []sim.Event{call(9.9, 1, etcdtrace.OpPut), ret(10.1, 1, etcdtrace.OutcomeOK)}, true},
		{"a write inside succeeding after the window is fine", []sim.Event{call(19, 1, etcdtrace.OpPut), ret(21, 1, etcdtrace.OutcomeOK)}, true},
		{"reads are not writes", []sim.Event{call(11, 1, etcdtrace.OpGet), ret(12, 1, etcdtrace.OutcomeOK)}, true},
		{"a write that succeeds without quorum fails the check", []sim.Event{call(11, 1, etcdtrace.OpCAS), ret(12, 1, etcdtrace.OutcomeOK)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := feed(NewNoWritesDuring(win), c.evs...)
			require.Equal(t, c.ok, r.OK, r.String())
		})
	}
}
