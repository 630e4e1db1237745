package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

const patched = "default/patched"

// pt is a patch of patched: the value it sets, its precondition, its answer.
func pt(client string, call, ret int64, value, precond string, code int, got, rv string) apiOpSpec {
	return apiOpSpec{client: client, verb: "patch", key: patched, value: value, precond: precond, call: call, ret: ret, code: code, got: got, gotRV: rv}
}

func TestPatchMerge(t *testing.T) {
	base := []apiOpSpec{
		pt("a", 0, 2, "a=1", "", 200, "a=1", "2"),
		pt("b", 1, 3, "b=1", "", 200, "a=1,b=1", "3"),
		pt("a", 4, 5, "a=2", "3", 200, "a=2,b=1", "4"),
		pt("b", 4, 6, "b=2", "3", 409, "", ""),
		pt("b", 7, 20, "b=3", "", 0, "", ""), // no answer: unknown
		pt("a", 8, 9, "a=3", "", 200, "a=3,b=1", "6"),
	}
	replace := func(i int, op apiOpSpec) []apiOpSpec {
		ops := append([]apiOpSpec(nil), base...)
		ops[i] = op
		return ops
	}
	item := func(v string) []apitrace.Item { return []apitrace.Item{{Key: patched, RV: "9", Value: v}} }
	cases := []struct {
		name  string
		ops   []apiOpSpec
		final []apitrace.Item // nil: no ServerState
		ok    bool
		want  string
	}{
		{"every patch merged", base, item("a=3,b=1"), true, "4 acknowledged patches (1 with a precondition) merged"},
		{"the unknown patch landed", base, item("a=3,b=3"), true, "1 checked"},
		{"a call never answered may land", append(base[:len(base):len(base)], pt("b", 21, -1, "b=4", "", 0, "", "")), item("a=3,b=4"), true, "1 checked"},
		{"other objects' patches are not the workload's", append(base[:len(base):len(base)],
			apiOpSpec{client: "x", verb: "patch", key: "default/o", value: "", call: 10, ret: 11, code: 200, got: "", gotRV: "7"}), item("a=3,b=1"), true, "1 patched object(s)"},

		{"last acknowledged patch lost", base, item("a=2,b=1"), false, "the final state shows a=2, not its last acknowledged a=3"},
		{"a patcher's key wiped", base, item("a=3"), false, "the final state shows b=(absent), not its last acknowledged b=1"},
		{"a refused patch shows", base, item("a=3,b=2"), false, "shows b=2, whose patch was refused"},
		{"an answer without its own value", replace(5, pt("a", 8, 9, "a=3", "", 200, "a=2,b=1", "6")), item("a=3,b=1"), false,
			"the answer to a op 5 shows a=2, not the a=3 it patched in"},
		{"a patch that undid another's", replace(5, pt("a", 8, 9, "a=3", "", 200, "a=3", "6")), item("a=3,b=1"), false,
			"lost patch on leases \"default/patched\": the answer to a op 5 shows b=(absent), though b=1 was acknowledged before the patch was sent"},
		{"a stale precondition applied", replace(2, pt("a", 4, 5, "a=2", "2", 200, "a=2,b=1", "4")), item("a=3,b=1"), false,
			"was applied with precondition resourceVersion 2, though the object had become version 3 before it produced 4"},
		{"no final state", base, nil, false, "no final server state"},
		{"missing from the final state", base, []apitrace.Item{{Key: "default/x", RV: "3"}}, false, "missing from the final server state"},
		{"final value not patch values", base, item("junk"), false, "is not <patcher>=<n>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := apiEvents("leases", c.ops)
			if c.final != nil {
				evs = append(evs, sim.Event{At: sim.Time(100e6), Kind: sim.KindNode, Data: &apitrace.ServerState{Resource: "leases", RV: "99", Items: c.final}})
			}
			for i := range evs {
				evs[i].Seq = uint64(i)
			}
			chk := NewPatchMerge()
			r := feedEvents(chk, evs)
			require.Equal(t, c.ok, r.OK, r.String())
			if c.ok {
				require.Contains(t, r.Detail, c.want)
			} else {
				require.Contains(t, r.String(), c.want, "among the offenses")
			}
			require.Equal(t, "patch-merge", chk.Name())
		})
	}
}
