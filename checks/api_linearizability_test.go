package checks

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
)

// apiOpSpec is one API call of a hand-built history: times in
// milliseconds, ret < 0 for a call that never returned.
type apiOpSpec struct {
	client, verb, key, value, precond, rv string
	call, ret                             int64
	code                                  int
	got, gotRV                            string // the object in the answer; got "" with gotRV "" means none
}

// apiEvents turns calls into apitrace Call and Return events in time order
// (a call before a return at the same instant).
func apiEvents(resource string, ops []apiOpSpec) []sim.Event {
	ts := inTimeOrder(len(ops), func(i int) (int64, int64) { return ops[i].call, ops[i].ret })
	evs := make([]sim.Event, len(ts))
	for n, x := range ts {
		o := ops[x.i]
		var d sim.Data
		if x.isRet {
			r := &apitrace.Return{Client: o.client, Op: uint64(x.i), Code: o.code, Value: o.got, RV: o.gotRV}
			r.Found = o.got != "" || o.gotRV != ""
			d = r
		} else {
			d = &apitrace.Call{Client: o.client, Op: uint64(x.i), User: "admin", Verb: o.verb, Resource: resource,
				Key: o.key, RV: o.rv, Value: o.value, Precondition: o.precond}
		}
		evs[n] = sim.Event{Seq: uint64(n), At: sim.Time(x.t * int64(time.Millisecond)), Kind: sim.KindNode, Data: d}
	}
	return evs
}

const k1 = "default/a"

func TestAPIModelStep(t *testing.T) {
	absent := apiState{}
	at5 := apiState{present: true, value: "a", rv: "5"}
	unk := apiState{present: true, value: "a", rvUnknown: true}
	unkB5 := apiState{present: true, value: "b", rvUnknown: true, floor: 5}
	cases := []struct {
		name  string
		s     apiState
		in    APIInput
		out   APIOutput
		legal bool
		next  apiState
	}{
		{"create on absent", absent, APIInput{Verb: APICreate, Value: "a"}, APIOutput{Code: 201, RV: "5"}, true, at5},
		{"create on present", at5, APIInput{Verb: APICreate, Value: "b"}, APIOutput{Code: 201, RV: "6"}, false, apiState{present: true, value: "b", rv: "6"}},
		{"create exists", at5, APIInput{Verb: APICreate, Value: "b"}, APIOutput{Code: 409}, true, at5},
		{"create unknown", absent, APIInput{Verb: APICreate, Value: "a"}, APIOutput{Unknown: true}, true, unk},
		{"get ok", at5, APIInput{Verb: APIGet}, APIOutput{Code: 200, Found: true, Value: "a", RV: "5"}, true, at5},
		{"get wrong rv", at5, APIInput{Verb: APIGet}, APIOutput{Code: 200, Found: true, Value: "a", RV: "6"}, false, at5},
		{"get fixes unknown rv", unk, APIInput{Verb: APIGet}, APIOutput{Code: 200, Found: true, Value: "a", RV: "9"}, true, apiState{present: true, value: "a", rv: "9"}},
		{"get 404 absent", absent, APIInput{Verb: APIGet}, APIOutput{Code: 404}, true, absent},
		{"update ok", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "5"}, APIOutput{Code: 200, RV: "7"}, true, apiState{present: true, value: "b", rv: "7"}},
		{"update stale ok", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "4"}, APIOutput{Code: 200, RV: "7"}, false, apiState{present: true, value: "b", rv: "7"}},
		{"update rv goes back", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "5"}, APIOutput{Code: 200, RV: "3"}, false, apiState{present: true, value: "b", rv: "3"}},
		{"update no-op same rv", at5, APIInput{Verb: APIUpdate, Value: "a", Precondition: "5"}, APIOutput{Code: 200, RV: "5"}, true, at5},
		{"update conflict", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "4"}, APIOutput{Code: 409}, true, at5},
		{"update false conflict", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "5"}, APIOutput{Code: 409}, false, at5},
		{"update conflict on unknown rv", unk, APIInput{Verb: APIUpdate, Value: "b", Precondition: "5"}, APIOutput{Code: 409}, true, unk},
		{"update 404", absent, APIInput{Verb: APIUpdate, Value: "b", Precondition: "5"}, APIOutput{Code: 404}, true, absent},
		{"update unknown mismatch", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "4"}, APIOutput{Unknown: true}, true, at5},
		{"update unknown match", at5, APIInput{Verb: APIUpdate, Value: "b", Precondition: "5"}, APIOutput{Unknown: true}, true, unkB5},
		{"unknown after unknown keeps the floor", unkB5, APIInput{Verb: APIUpdate, Value: "c", Precondition: "8"}, APIOutput{Unknown: true}, true, apiState{present: true, value: "c", rvUnknown: true, floor: 5}},
		{"unknown rv is not below the floor: precondition", unkB5, APIInput{Verb: APIUpdate, Value: "c", Precondition: "4"}, APIOutput{Unknown: true}, true, unkB5},
		{"unknown rv is not below the floor: get", unkB5, APIInput{Verb: APIGet}, APIOutput{Code: 200, Found: true, Value: "b", RV: "4"}, false, unkB5},
		{"unknown rv is not below the floor: update", unkB5, APIInput{Verb: APIUpdate, Value: "c"}, APIOutput{Code: 200, RV: "4"}, false, apiState{present: true, value: "c", rv: "4"}},
		{"unknown rv above the floor: get", unkB5, APIInput{Verb: APIGet}, APIOutput{Code: 200, Found: true, Value: "b", RV: "6"}, true, apiState{present: true, value: "b", rv: "6"}},
		{"seed on the initial state", absent, APIInput{Verb: apiSeed}, APIOutput{Code: 200, Found: true, Value: "a", RV: "5"}, true, at5},
		{"seed later", at5, APIInput{Verb: apiSeed}, APIOutput{Code: 200, Found: true, Value: "b", RV: "9"}, false, apiState{present: true, value: "b", rv: "9"}},
		{"delete ok", at5, APIInput{Verb: APIDelete}, APIOutput{Code: 200}, true, absent},
		{"delete absent ok", absent, APIInput{Verb: APIDelete}, APIOutput{Code: 200}, false, absent},
		{"delete 404", absent, APIInput{Verb: APIDelete}, APIOutput{Code: 404}, true, absent},
		{"unknown verb", at5, APIInput{Verb: "patch"}, APIOutput{Code: 200}, false, at5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			legal, next := APIModel.Step(c.s, c.in, c.out)
			require.Equal(t, c.legal, legal)
			require.Equal(t, c.next, next)
		})
	}
	require.Equal(t, `update(pods/default/a, "b" if @5) -> 200 @7`,
		APIModel.DescribeOperation(APIInput{Verb: APIUpdate, Resource: "pods", Key: k1, Value: "b", Precondition: "5"}, APIOutput{Code: 200, Found: true, Value: "b", RV: "7"}))
	require.Equal(t, `"a" @?`, APIModel.DescribeState(unk))
	require.Equal(t, `"b" @?>=5`, APIModel.DescribeState(unkB5))
}

func TestAPILinearizability(t *testing.T) {
	base := []apiOpSpec{
		{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 2, code: 201, got: "a", gotRV: "5"},
		{client: "c2", verb: "get", key: k1, call: 3, ret: 4, code: 200, got: "a", gotRV: "5"},
		{client: "c1", verb: "update", key: k1, value: "b", precond: "5", call: 5, ret: 8, code: 200, got: "b", gotRV: "7"},
		{client: "c2", verb: "update", key: k1, value: "c", precond: "5", call: 6, ret: 9, code: 409},
		{client: "c3", verb: "get", key: k1, call: 10, ret: 11, code: 200, got: "b", gotRV: "7"},
		{client: "c3", verb: "delete", key: k1, call: 12, ret: 13, code: 200, got: "b", gotRV: "7"},
		{client: "c1", verb: "get", key: k1, call: 14, ret: 15, code: 404},
	}
	with := func(extra ...apiOpSpec) []apiOpSpec { return append(append([]apiOpSpec(nil), base...), extra...) }
	cases := []struct {
		name string
		ops  []apiOpSpec
		ok   bool
		want string
	}{
		{"valid history", base, true, "linearizable: 7 ops on 1 objects"},
		{"concurrent updates, one conflicts", []apiOpSpec{
			{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 1, code: 201, gotRV: "5"},
			{client: "c1", verb: "update", key: k1, value: "b", precond: "5", call: 2, ret: 6, code: 409},
			{client: "c2", verb: "update", key: k1, value: "c", precond: "5", call: 3, ret: 5, code: 200, gotRV: "6"},
			{client: "c1", verb: "get", key: k1, call: 7, ret: 8, code: 200, got: "c", gotRV: "6"},
		}, true, "linearizable"},
		{"unknown create took effect, rv learned later", []apiOpSpec{
			{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 10, code: 504},
			{client: "c2", verb: "update", key: k1, value: "b", precond: "3", call: 2, ret: 3, code: 409},
			{client: "c2", verb: "get", key: k1, call: 4, ret: 5, code: 200, got: "a", gotRV: "9"},
			{client: "c2", verb: "update", key: k1, value: "b", precond: "9", call: 6, ret: 7, code: 200, gotRV: "11"},
		}, true, "1 with unknown outcome"},
		{"unknown update never applied", with(
			apiOpSpec{client: "c4", verb: "create", key: "default/b", value: "x", call: 0, ret: 1, code: 201, gotRV: "20"},
			apiOpSpec{client: "c4", verb: "update", key: "default/b", value: "y", precond: "20", call: 2, ret: -1},
			apiOpSpec{client: "c5", verb: "get", key: "default/b", call: 30, ret: 31, code: 200, got: "x", gotRV: "20"},
		), true, "2 objects"},
		{"stale cache reads are skipped", with(
			apiOpSpec{client: "c4", verb: "get", key: k1, rv: "0", call: 16, ret: 17, code: 200, got: "a", gotRV: "5"},
		), true, "skipped 1 cache reads"},
		{"refused write dropped", with(
			apiOpSpec{client: "c4", verb: "create", key: k1, value: "z", call: 16, ret: 17, code: 403},
			apiOpSpec{client: "c4", verb: "create", key: k1, value: "z", call: 18, ret: 19, code: 503},
			apiOpSpec{client: "c4", verb: "get", key: k1, call: 20, ret: 21, code: 404},
		), true, "2 writes refused before etcd"},
		{"objects patched are left out", with(
			apiOpSpec{client: "c4", verb: "patch", key: k1, value: "q", call: 16, ret: 17, code: 200},
			apiOpSpec{client: "c4", verb: "get", key: k1, call: 18, ret: 19, code: 200, got: "q", gotRV: "30"},
		), true, "left out 1 objects"},

		{"stale quorum read", with(
			apiOpSpec{client: "c4", verb: "get", key: k1, call: 9, ret: 10, code: 200, got: "a", gotRV: "5"},
		), false, "not linearizable"},
		{"lost update: precondition matched twice (last write wins)", []apiOpSpec{
			{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 1, code: 201, gotRV: "5"},
			{client: "c1", verb: "update", key: k1, value: "b", precond: "5", call: 2, ret: 3, code: 200, gotRV: "6"},
			{client: "c2", verb: "update", key: k1, value: "c", precond: "5", call: 4, ret: 5, code: 200, gotRV: "7"},
		}, false, `no order fits update(pods/default/a, "c" if @5) -> 200 @7`},
		{"create on existing name", with(
			apiOpSpec{client: "c4", verb: "create", key: k1, value: "x", call: 9, ret: 10, code: 201, gotRV: "8"},
		), false, "not linearizable"},
		{"false conflict", []apiOpSpec{
			{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 1, code: 201, gotRV: "5"},
			{client: "c1", verb: "update", key: k1, value: "b", precond: "5", call: 2, ret: 3, code: 409},
		}, false, "409"},
		{"acknowledged create not found", []apiOpSpec{
			{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 1, code: 201, gotRV: "5"},
			{client: "c2", verb: "get", key: k1, call: 2, ret: 3, code: 404},
		}, false, "get(pods/default/a) -> 404"},
		{"forbidden write took effect", []apiOpSpec{
			{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 1, code: 403},
			{client: "c2", verb: "get", key: k1, call: 2, ret: 3, code: 200, got: "a", gotRV: "5"},
		}, false, "not linearizable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chk := NewAPILinearizability()
			r := feedEvents(chk, apiEvents("pods", c.ops))
			require.Equal(t, c.ok, r.OK, r.String())
			require.Contains(t, r.Detail, c.want)
			var buf bytes.Buffer
			err := chk.WriteVisualization(&buf)
			if c.ok {
				require.ErrorIs(t, err, ErrNoVisualization)
				return
			}
			require.NoError(t, err)
			require.Contains(t, buf.String(), "pods/default/a")
			require.NotEmpty(t, r.Offenses)
			require.Contains(t, r.Offenses[0].What, `object "pods/default/a"`)
		})
	}
}

func TestAPILinearizabilityIgnoresOtherEvents(t *testing.T) {
	c := NewAPILinearizability()
	c.Observe(&sim.Event{Kind: sim.KindDeliver, Port: "api"})
	c.Observe(&sim.Event{Kind: sim.KindNode, Data: &apitrace.Return{Client: "x", Op: 9, Code: 200}})
	r := c.Finish()
	require.True(t, r.OK, r.String())
	require.Contains(t, r.Detail, "ignored 1 returns without a call")
	require.Equal(t, "api-linearizability", c.Name())
}
