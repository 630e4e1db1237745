package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

const ctr = "default/counter"

// incr is an increment: written value from precondition, answered code.
func incr(client string, call, ret int64, value, precond string, code int, rv string) apiOpSpec {
	return apiOpSpec{client: client, verb: "update", key: ctr, value: value, precond: precond, call: call, ret: ret, code: code, got: value, gotRV: rv}
}

func finalState(ms int64, items ...apitrace.Item) sim.Event {
	return sim.Event{At: sim.Time(ms * 1e6), Kind: sim.KindNode, Data: &apitrace.ServerState{Resource: "configmaps", RV: "99", Items: items}}
}

func TestNoLostUpdates(t *testing.T) {
	base := []apiOpSpec{
		{client: "c0", verb: "create", key: ctr, value: "0", call: 0, ret: 1, code: 201, got: "0", gotRV: "1"},
		incr("c1", 2, 4, "1", "1", 200, "2"),
		incr("c2", 3, 5, "1", "1", 409, ""),
		incr("c2", 6, 7, "2", "2", 200, "3"),
		incr("c3", 8, 20, "3", "3", 0, ""),   // unknown: no answer
		incr("c1", 9, 10, "3", "3", 504, ""), // unknown: timeout
		incr("c1", 11, 12, "3", "3", 403, ""),
	}
	with := func(extra ...apiOpSpec) []apiOpSpec { return append(append([]apiOpSpec(nil), base...), extra...) }
	cases := []struct {
		name  string
		ops   []apiOpSpec
		final []apitrace.Item // nil: no ServerState
		ok    bool
		want  string
	}{
		{"no unknown increment applied", base, []apitrace.Item{{Key: ctr, RV: "3", Value: "2"}}, true, "2 acknowledged, 2 unknown-outcome and 2 failed increments"},
		{"one unknown increment applied", base, []apitrace.Item{{Key: ctr, RV: "4", Value: "3"}}, true, "1 checked"},
		{"final from a quorum read", with(
			apiOpSpec{client: "c9", verb: "get", key: ctr, call: 30, ret: 31, code: 200, got: "3", gotRV: "4"},
		), nil, true, "1 checked"},
		{"counter created elsewhere starts at 0", []apiOpSpec{incr("c1", 2, 4, "1", "1", 200, "2")},
			[]apitrace.Item{{Key: ctr, RV: "2", Value: "1"}}, true, "1 counter(s)"},

		{"acknowledged increment lost", base, []apitrace.Item{{Key: ctr, RV: "2", Value: "1"}}, false, "1 acknowledged increment(s) lost"},
		{"too many increments", base, []apitrace.Item{{Key: ctr, RV: "9", Value: "5"}}, false, "final value 5 > 4"},
		{"precondition matched twice", with(incr("c4", 13, 14, "3", "2", 200, "5")),
			[]apitrace.Item{{Key: ctr, RV: "5", Value: "3"}}, false, "both acknowledged with precondition resourceVersion 2"},
		{"same value written twice", with(incr("c4", 13, 14, "2", "1x", 200, "5")),
			[]apitrace.Item{{Key: ctr, RV: "5", Value: "3"}}, false, "value 2 was written twice"},
		{"counter deleted", base, []apitrace.Item{{Key: "default/other", RV: "3", Value: "2"}}, false, "missing from the final server state"},
		{"no final value", base, nil, false, "no final value"},
		{"final not an integer", base, []apitrace.Item{{Key: ctr, RV: "3", Value: "two"}}, false, "not an integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := apiEvents("configmaps", c.ops)
			if c.final != nil {
				evs = append(evs, finalState(100, c.final...))
			}
			for i := range evs {
				evs[i].Seq = uint64(i)
			}
			chk := NewNoLostUpdates()
			r := feedEvents(chk, evs)
			require.Equal(t, c.ok, r.OK, r.String())
			require.Contains(t, r.Detail, c.want)
			require.Equal(t, "no-lost-updates", chk.Name())
		})
	}
}
