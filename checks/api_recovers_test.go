package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestAPIRecovers: the last fault or operator action is at 20 s and the
// bound is 10 s, so the calls invoked from 30 s on must end without a
// server error or a lost answer; earlier ones are not judged.
func TestAPIRecovers(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	call := func(at float64, op uint64) sim.Event {
		return sim.Event{At: sec(at), Kind: sim.KindNode, Data: &apitrace.Call{Client: "c", Op: op, Verb: "update", Key: "default/x"}}
	}
	ret := func(at float64, op uint64, code int) sim.Event {
		return sim.Event{At: sec(at), Kind: sim.KindNode, Data: &apitrace.Return{Client: "c", Op: op, Code: code, Server: "apiserver-1"}}
	}
	crash := sim.Event{At: sec(20), Kind: sim.KindFault, Host: 1, Name: "crash"}
	step := sim.Event{At: sec(25), Kind: sim.KindNode, Data: &etcdtrace.RecoveryStep{Operator: "op", Step: "set-etcd-servers"}}
	member := sim.Event{At: sec(20), Kind: sim.KindNode, Data: &etcdtrace.MemberCall{Client: "op", Op: "remove", NodeID: 1}}
	seq := func(evs ...sim.Event) []sim.Event { return evs }
	cases := []struct {
		name string
		evs  []sim.Event
		ok   bool
	}{
		{"calls served after the bound", seq(crash, call(31, 1), ret(31.1, 1, 200), call(32, 2), ret(32.1, 2, 409)), true},
		{"a server error within the bound is not judged", seq(crash, call(25, 1), ret(30.5, 1, 504), call(31, 2), ret(31.1, 2, 200)), true},
		{"a server error after the bound fails", seq(crash, call(31, 1), ret(36, 1, 504)), false},
		{"no answer after the bound fails", seq(member, call(31, 1), ret(40, 1, 0)), false},
		{"an operator step moves the bound", seq(crash, step, call(31, 1), ret(36, 1, 504), call(36, 2), ret(36.1, 2, 200)), true},
		{"after the step's bound a server error fails", seq(crash, step, call(36, 1), ret(37, 1, 503)), false},
		{"a later fault excuses an earlier failure", seq(crash, call(31, 1), ret(36, 1, 504), sim.Event{At: sec(40), Kind: sim.KindFault, Host: 2, Name: "restart"}, call(51, 2), ret(51.1, 2, 200)), true},
		{"no call after the bound shows nothing", seq(crash, call(25, 1), ret(25.1, 1, 200)), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chk := NewAPIRecovers(10 * time.Second)
			for i := range c.evs {
				c.evs[i].Seq = uint64(i)
				chk.Observe(&c.evs[i])
			}
			r := chk.Finish()
			require.Equal(t, c.ok, r.OK, r.String())
		})
	}
}
