package checks

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

const (
	ok      = etcdtrace.OutcomeOK
	fail    = etcdtrace.OutcomeFail
	unknown = etcdtrace.OutcomeUnknown
)

func put(c, key, val string, call, ret int64, o etcdtrace.Outcome) histOp {
	return histOp{Client: c, Kind: etcdtrace.OpPut, Key: key, Value: val, Call: call, Return: ret, Outcome: o}
}

func get(c, key string, call, ret int64, found bool, got string) histOp {
	return histOp{Client: c, Kind: etcdtrace.OpGet, Key: key, Call: call, Return: ret, Outcome: ok, Found: found, Got: got}
}

func del(c, key string, call, ret int64, deleted bool) histOp {
	return histOp{Client: c, Kind: etcdtrace.OpDelete, Key: key, Call: call, Return: ret, Outcome: ok, Succeeded: deleted}
}

func cas(c, key, expect, val string, call, ret int64, o etcdtrace.Outcome, succeeded bool) histOp {
	return histOp{Client: c, Kind: etcdtrace.OpCAS, Key: key, Expect: expect, Value: val, Call: call, Return: ret, Outcome: o, Succeeded: succeeded}
}

func checkHistory(opts LinearizabilityOptions, ops ...histOp) (*Linearizability, Result) {
	c := NewLinearizability(opts)
	return c, feedEvents(c, historyEvents(ops, time.Millisecond))
}

func TestLinearizability(t *testing.T) {
	cases := []struct {
		name string
		opts LinearizabilityOptions
		ops  []histOp
		want string // "" for a pass, else part of the failure detail
	}{
		{name: "sequential", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), get("c2", "x", 20, 30, true, "1"),
			cas("c1", "x", "1", "2", 40, 50, ok, true), get("c2", "x", 60, 70, true, "2"),
			del("c1", "x", 80, 90, true), get("c2", "x", 100, 110, false, ""), del("c2", "x", 120, 130, false),
		}},
		{name: "concurrent read sees old or new", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), put("c1", "x", "2", 20, 60, ok),
			get("c2", "x", 30, 40, true, "1"), get("c3", "x", 35, 45, true, "2"), get("c2", "x", 50, 70, true, "2"),
		}},
		{name: "keys are independent", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), put("c2", "y", "1", 0, 10, ok),
			get("c1", "y", 20, 30, true, "1"), get("c2", "x", 20, 30, true, "1"),
		}},
		{name: "unknown write appears later", ops: []histOp{
			put("c1", "x", "1", 0, 10, unknown), get("c2", "x", 20, 30, false, ""), get("c2", "x", 500, 510, true, "1"),
		}},
		{name: "unknown write never appears", ops: []histOp{
			put("c1", "x", "1", 0, 10, unknown), get("c2", "x", 20, 30, false, ""), get("c2", "x", 500, 510, false, ""),
		}},
		{name: "write without return may apply", ops: []histOp{
			put("c1", "x", "1", 0, -1, ""), get("c2", "x", 20, 30, true, "1"),
		}},
		{name: "unknown cas applies", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), cas("c1", "x", "1", "2", 20, 30, unknown, false), get("c2", "x", 40, 50, true, "2"),
		}},
		{name: "failed and unanswered reads are dropped", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok),
			{Client: "c2", Kind: etcdtrace.OpGet, Key: "x", Call: 20, Return: 30, Outcome: fail, Found: true, Got: "bogus"},
			{Client: "c2", Kind: etcdtrace.OpGet, Key: "x", Call: 40, Return: 50, Outcome: unknown},
			{Client: "c3", Kind: etcdtrace.OpGet, Key: "x", Call: 40, Return: -1},
		}},
		{name: "failed write is dropped", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), put("c1", "x", "2", 20, 30, fail), get("c2", "x", 40, 50, true, "1"),
		}},
		{name: "stale read", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), put("c1", "x", "2", 20, 30, ok), get("c2", "x", 40, 50, true, "1"),
		}, want: `not linearizable on 1 of 1 key groups ("x"); first: linearizability: key group "x": after 2 linearized ops (state "2" v2), no order fits get("x") -> "1" by c2`},
		{name: "lost acknowledged write", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), get("c2", "x", 20, 30, false, ""),
		}, want: `no order fits get("x") -> <absent>`},
		{name: "failed write took effect", ops: []histOp{
			put("c1", "x", "1", 0, 10, fail), get("c2", "x", 20, 30, true, "1"),
		}, want: "not linearizable"},
		{name: "failed write took effect, failed writes may apply", opts: LinearizabilityOptions{FailedWritesMayApply: true}, ops: []histOp{
			put("c1", "x", "1", 0, 10, fail), get("c2", "x", 20, 30, true, "1"),
		}},
		{name: "unknown write seen before its call", ops: []histOp{
			get("c2", "x", 0, 5, true, "1"), put("c1", "x", "1", 10, 20, unknown),
		}, want: "not linearizable"},
		{name: "cas succeeds on a mismatch", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), cas("c2", "x", "0", "2", 20, 30, ok, true),
		}, want: `no order fits cas("x", "0" -> "2") -> true`},
		{name: "double delete", ops: []histOp{
			put("c1", "x", "1", 0, 10, ok), del("c1", "x", 20, 30, true), del("c2", "x", 40, 50, true),
		}, want: "not linearizable"},
		{name: "one bad key among good ones", ops: []histOp{
			put("c1", "a", "1", 0, 10, ok), get("c1", "a", 20, 30, true, "1"),
			put("c1", "b", "1", 0, 10, ok), get("c1", "b", 20, 30, true, "0"),
		}, want: `not linearizable on 1 of 2 key groups ("b")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, r := checkHistory(tc.opts, tc.ops...)
			require.Equal(t, "linearizability", r.Name)
			var buf bytes.Buffer
			if tc.want == "" {
				require.True(t, r.OK, r.String())
				require.Contains(t, r.Detail, "linearizable: ")
				require.ErrorIs(t, c.WriteVisualization(&buf), ErrNoVisualization)
				return
			}
			require.False(t, r.OK, r.String())
			require.Contains(t, r.Detail, tc.want)
			require.NotEmpty(t, r.Offenses)
			require.NoError(t, c.WriteVisualization(&buf))
			require.Contains(t, buf.String(), "<html")
		})
	}
}

func TestLinearizabilityOffenseNamesTheReturn(t *testing.T) {
	_, r := checkHistory(LinearizabilityOptions{},
		put("c1", "x", "1", 0, 10, ok), put("c1", "x", "2", 20, 30, ok), get("c2", "x", 40, 50, true, "1"))
	require.False(t, r.OK)
	require.Len(t, r.Offenses, 1)
	require.Equal(t, uint64(5), r.Offenses[0].Seq, "the stale read's return event")
	require.Equal(t, 50*time.Millisecond, time.Duration(r.Offenses[0].At))
}

func TestLinearizabilityStats(t *testing.T) {
	_, r := checkHistory(LinearizabilityOptions{},
		put("c1", "x", "1", 0, 10, ok), put("c1", "x", "2", 20, 30, fail), put("c1", "x", "3", 40, 50, unknown),
		get("c2", "x", 60, 70, true, "1"), get("c2", "y", 60, 70, false, ""), get("c3", "x", 60, -1, false, ""))
	require.True(t, r.OK, r.String())
	require.Equal(t, "linearizable: 4 ops on 2 key groups (2 reads, 2 writes of which 1 with unknown outcome; dropped 1 unanswered reads, 1 failed writes)", r.Detail)
}

func TestLinearizabilityIgnoresOtherEvents(t *testing.T) {
	r := feed(NewLinearizability(LinearizabilityOptions{}),
		at(0, &etcdtrace.Return{Client: "c9", Op: 1, Outcome: ok}), // no call
		at(1, ap("n1", 1, 1, 1)))
	require.True(t, r.OK, r.String())
	require.Contains(t, r.Detail, "0 ops on 0 key groups")
	require.Contains(t, r.Detail, "ignored 1 returns without a call")
}

// TestLinearizabilityDropsWritesNoMemberApplied: once the trace carries the
// members' applies, a write of unknown outcome whose value no member
// applied never took effect: it is dropped, so a read of its value fails
// the check (nothing explains it), and one whose value a member applied
// stays a write that may have happened.
func TestLinearizabilityDropsWritesNoMemberApplied(t *testing.T) {
	apply := func(value string) sim.Event {
		return sim.Event{At: sim.Time(5 * time.Millisecond), Kind: sim.KindNode, Data: &etcdtrace.Apply{Member: "etcd-1", Rev: 2,
			Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: "y", Value: value, ModRev: 2}}}}
	}
	run := func(applied string, ops ...histOp) Result {
		c := NewLinearizability(LinearizabilityOptions{})
		evs := append([]sim.Event{apply(applied)}, historyEvents(ops, time.Millisecond)...)
		return feedEvents(c, evs)
	}
	seen := []histOp{put("c1", "x", "1", 0, 10, unknown), get("c2", "x", 500, 510, true, "1")}
	r := run("other", seen...)
	require.False(t, r.OK, "no member applied \"1\", yet a read saw it: %s", r.String())
	require.NotEmpty(t, r.Offenses)
	r = run("1", seen...)
	require.True(t, r.OK, r.String())
	r = run("other", put("c1", "x", "1", 0, 10, unknown), get("c2", "x", 500, 510, false, ""))
	require.True(t, r.OK, r.String())
	require.Contains(t, r.Detail, "1 writes of unknown outcome no member applied")
}
