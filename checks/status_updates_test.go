package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

const srs = "default/status-rs"

// specW and statusW are a spec write (update) and a status write
// (update-status) of srs: the value sent, its precondition, the answer.
func specW(client string, call, ret int64, value, precond string, code int, got, rv string) apiOpSpec {
	return apiOpSpec{client: client, verb: "update", key: srs, value: value, precond: precond, call: call, ret: ret, code: code, got: got, gotRV: rv}
}

func statusW(client string, call, ret int64, value, precond string, code int, got, rv string) apiOpSpec {
	return apiOpSpec{client: client, verb: "update-status", key: srs, value: value, precond: precond, call: call, ret: ret, code: code, got: got, gotRV: rv}
}

func TestStatusUpdates(t *testing.T) {
	base := []apiOpSpec{
		{client: "c0", verb: "create", key: srs, value: "0/0", call: 0, ret: 1, code: 201, got: "0/0", gotRV: "1"},
		statusW("s1", 2, 3, "1000001/1", "1", 200, "0/1", "2"),
		specW("p1", 4, 5, "1/1000001", "2", 200, "1/1", "3"),
		statusW("s2", 2, 6, "1000001/1", "1", 409, "", ""),
		statusW("s2", 7, 8, "1000002/2", "3", 200, "1/2", "4"),
		specW("p2", 9, 20, "2/1000002", "4", 0, "", ""), // no answer: unknown
		specW("p2", 21, 22, "2/1000002", "4", 403, "", ""),
	}
	with := func(extra ...apiOpSpec) []apiOpSpec { return append(append([]apiOpSpec(nil), base...), extra...) }
	replace := func(i int, op apiOpSpec) []apiOpSpec {
		ops := append([]apiOpSpec(nil), base...)
		ops[i] = op
		return ops
	}
	item := func(v string) []apitrace.Item { return []apitrace.Item{{Key: srs, RV: "9", Value: v}} }
	cases := []struct {
		name  string
		ops   []apiOpSpec
		final []apitrace.Item // nil: no ServerState
		ok    bool
		want  string
	}{
		{"every write accounted for", base, item("1/2"), true, "spec 1 acknowledged, 1 unknown-outcome, 1 failed; status 2 acknowledged, 0 unknown-outcome, 1 failed"},
		{"the unknown spec write applied", base, item("2/2"), true, "1 checked"},
		{"final from a quorum read", with(apiOpSpec{client: "r", verb: "get", key: srs, call: 30, ret: 31, code: 200, got: "1/2", gotRV: "4"}), nil, true, "1 checked"},
		{"other objects and values are not the workload's", with(
			apiOpSpec{client: "x", verb: "update", key: "default/other", value: "7", precond: "3", call: 23, ret: 24, code: 200, got: "7", gotRV: "5"},
		), item("1/2"), true, "1 object(s)"},

		{"lost status update", base, item("1/1"), false, "lost status update on replicasets \"default/status-rs\": final status 1 < 2"},
		{"lost spec update", base, item("0/2"), false, "lost spec update"},
		{"too many status writes", base, item("1/3"), false, "final status 3 > 2"},
		{"a precondition matched by a spec and a status write", with(specW("p3", 23, 24, "2/1000002", "3", 200, "2/2", "5")),
			item("2/2"), false, "were both acknowledged with precondition resourceVersion 3"},
		{"one status value written twice", with(statusW("s3", 23, 24, "1000002/2", "2x", 200, "1/2", "5")),
			item("1/3"), false, "status 2 was written twice"},
		{"a status write changed the spec", replace(1, statusW("s1", 2, 3, "1000001/1", "1", 200, "1000001/1", "2")),
			item("1/2"), false, "the answer to s1 op 1 (update-status) shows spec 1000001, which no update sent (it is what s1 op 1 sent to update-status)"},
		{"a spec write changed the status", base, item("1/1000001"), false, "the server state shows status 1000001, which no update-status sent (it is what p1 op 2 sent to update)"},
		{"missing from the server state", base, []apitrace.Item{{Key: "default/x", RV: "3", Value: "0/0"}}, false, "missing from the final server state"},
		{"no final value", base, nil, false, "no final value"},
		{"final not spec/status", base, item("two"), false, "is not <spec>/<status>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs := apiEvents("replicasets", c.ops)
			if c.final != nil {
				evs = append(evs, sim.Event{At: sim.Time(100e6), Kind: sim.KindNode, Data: &apitrace.ServerState{Resource: "replicasets", RV: "99", Items: c.final}})
			}
			for i := range evs {
				evs[i].Seq = uint64(i)
			}
			chk := NewStatusUpdates()
			r := feedEvents(chk, evs)
			require.Equal(t, c.ok, r.OK, r.String())
			if c.ok {
				require.Contains(t, r.Detail, c.want)
			} else {
				require.Contains(t, r.String(), c.want, "among the offenses")
			}
			require.Equal(t, "status-updates", chk.Name())
		})
	}
}
