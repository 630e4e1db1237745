package checks

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// ent is a present key of a model state: value, version, and known mod and
// create revisions (0: unknown above 0).
func ent(key, value string, version, mod, create int64) kvEntry {
	return kvEntry{key: key, value: value, version: version, mod: revAt(mod, 0), create: revAt(create, 0)}
}

// state is a model state at last-write revision rev.
func state(rev int64, ents ...kvEntry) *kvState { return &kvState{ents: ents, rev: rev} }

func TestKVModelStep(t *testing.T) {
	absent, one := state(0), state(0, ent("k", "1", 1, 0, 0))
	get := KVInput{Kind: etcdtrace.OpGet, Key: "k"}
	cases := []struct {
		name   string
		state  *kvState
		in     KVInput
		out    KVOutput
		legal  bool
		expect *kvState
	}{
		{"get absent", absent, get, KVOutput{}, true, absent},
		{"get absent but found", absent, get, KVOutput{Found: true}, false, nil},
		{"get value", one, get, KVOutput{Found: true, Value: "1"}, true, one},
		{"get value and version", one, get, KVOutput{Found: true, Value: "1", Version: 1}, true, one},
		{"get version of a write applied twice", one, get, KVOutput{Found: true, Value: "1", Version: 2}, false, nil},
		{"put bumps the version", one, KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{}, true, state(0, ent("k", "1", 2, 0, 0))},
		{"get stale value", one, get, KVOutput{Found: true, Value: "0"}, false, nil},
		{"get lost value", one, get, KVOutput{}, false, nil},
		{"put", absent, KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{}, true, one},
		{"delete present", one, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{Succeeded: true}, true, absent},
		{"delete absent", absent, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{}, true, absent},
		{"delete absent claims success", absent, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{Succeeded: true}, false, nil},
		{"cas holds", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "1", Value: "2"}, KVOutput{Succeeded: true}, true, state(0, ent("k", "2", 2, 0, 0))},
		{"cas fails", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "0", Value: "2"}, KVOutput{}, true, one},
		{"cas wrongly succeeds", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "0", Value: "2"}, KVOutput{Succeeded: true}, false, nil},
		{"cas wrongly fails", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "1", Value: "2"}, KVOutput{}, false, nil},
		{"cas absent holds", absent, KVInput{Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true, Value: "1"}, KVOutput{Succeeded: true}, true, one},
		{"cas absent on present", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true, Value: "2"}, KVOutput{}, true, one},
		{"cas expect empty on absent", absent, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "", Value: "1"}, KVOutput{}, true, absent},
		{"unknown put applies", absent, KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{Unknown: true}, true, one},
		{"unknown cas applies if it holds", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "1", Value: "2"}, KVOutput{Unknown: true}, true, state(0, ent("k", "2", 2, 0, 0))},
		{"unknown delete", one, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{Unknown: true}, true, absent},
		{"unknown kind", one, KVInput{Kind: "bogus", Key: "k"}, KVOutput{}, false, nil},

		// Revisions.
		{"put at its revision", state(4), KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{Rev: 5}, true, state(5, ent("k", "1", 1, 5, 5))},
		{"put below the last write", state(5), KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{Rev: 5}, false, nil},
		{"update keeps the create revision", state(5, ent("k", "1", 1, 5, 5)), KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "2"}, KVOutput{Rev: 7}, true, state(7, ent("k", "2", 2, 7, 5))},
		{"get reports the revisions", state(5, ent("k", "1", 1, 5, 5)), get, KVOutput{Found: true, Value: "1", ModRev: 5, CreateRev: 5, Rev: 9}, true, state(5, ent("k", "1", 1, 5, 5))},
		{"get with a wrong mod revision", state(5, ent("k", "1", 1, 5, 5)), get, KVOutput{Found: true, Value: "1", ModRev: 4, Rev: 9}, false, nil},
		{"get with a header below the last write", state(5, ent("k", "1", 1, 5, 5)), get, KVOutput{Found: true, Value: "1", Rev: 4}, false, nil},
		{"get learns an unknown write's revision", state(3, kvEntry{key: "k", value: "1", version: 1, mod: kvRev{lo: 3}, create: kvRev{lo: 3}}), get,
			KVOutput{Found: true, Value: "1", ModRev: 6, CreateRev: 6, Rev: 8}, true, state(6, ent("k", "1", 1, 6, 6))},
		{"an unknown write's revision is above the writes before it", state(3, kvEntry{key: "k", value: "1", version: 1, mod: kvRev{lo: 3}, create: kvRev{lo: 3}}), get,
			KVOutput{Found: true, Value: "1", ModRev: 3}, false, nil},
		{"unknown put leaves its revision open", state(3), KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{Unknown: true}, true,
			state(3, kvEntry{key: "k", value: "1", version: 1, mod: kvRev{lo: 3}, create: kvRev{lo: 3}})},
		{"failed cas header at the last write", state(5, ent("k", "1", 1, 5, 5)), KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "0", Value: "2"}, KVOutput{Rev: 5}, true, state(5, ent("k", "1", 1, 5, 5))},
		{"failed cas header below the last write", state(5, ent("k", "1", 1, 5, 5)), KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "0", Value: "2"}, KVOutput{Rev: 4}, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.state.clone()
			ok, next := KVModel.Step(tc.state, tc.in, tc.out)
			require.Equal(t, tc.legal, ok)
			if ok {
				require.True(t, KVModel.Equal(tc.expect, next), "got %+v, want %+v", next, tc.expect)
			}
			require.Equal(t, before, tc.state, "Step must not change its input state")
		})
	}
}

// TestKVModelTxn: a txn's compares pick its branch, its writes share one
// revision, its range reads see the writes before them.
func TestKVModelTxn(t *testing.T) {
	s0 := state(5, ent("a", "1", 1, 4, 4), ent("b", "2", 1, 5, 5))
	put := func(k, v string) etcdtrace.TxnOp { return etcdtrace.TxnOp{Type: etcdtrace.TxnPut, Key: k, Value: v} }
	del := func(k string) etcdtrace.TxnOp { return etcdtrace.TxnOp{Type: etcdtrace.TxnDelete, Key: k} }
	rng := func(k, end string, els bool) etcdtrace.TxnOp {
		return etcdtrace.TxnOp{Type: etcdtrace.TxnRange, Key: k, End: end, Else: els}
	}
	modIs := func(k string, rev int64) etcdtrace.Compare {
		return etcdtrace.Compare{Key: k, Target: etcdtrace.CmpMod, ModRev: rev}
	}
	kv := func(op int, k, v string, mod, create, version int64) etcdtrace.ReadKV {
		return etcdtrace.ReadKV{Op: op, Key: k, Value: v, ModRev: mod, CreateRev: create, Version: version}
	}
	txn := func(cmps []etcdtrace.Compare, ops ...etcdtrace.TxnOp) KVInput {
		return KVInput{Kind: etcdtrace.OpTxn, Compares: cmps, Ops: ops}
	}
	cases := []struct {
		name   string
		in     KVInput
		out    KVOutput
		legal  bool
		expect *kvState
	}{
		{"puts and a delete at one revision", txn(nil, put("a", "x"), del("b"), put("c", "y")), KVOutput{Succeeded: true, Rev: 6}, true,
			state(6, ent("a", "x", 2, 6, 4), ent("c", "y", 1, 6, 6))},
		{"a range sees the writes before it", txn(nil, put("a", "x"), rng("a", "c", false)),
			KVOutput{Succeeded: true, Rev: 6, KVs: []etcdtrace.ReadKV{kv(1, "a", "x", 6, 4, 2), kv(1, "b", "2", 5, 5, 1)}}, true,
			state(6, ent("a", "x", 2, 6, 4), ent("b", "2", 1, 5, 5))},
		{"a range that misses an earlier write of its txn", txn(nil, put("a", "x"), rng("a", "c", false)),
			KVOutput{Succeeded: true, Rev: 6, KVs: []etcdtrace.ReadKV{kv(1, "a", "1", 4, 4, 1), kv(1, "b", "2", 5, 5, 1)}}, false, nil},
		{"compare on mod holds", txn([]etcdtrace.Compare{modIs("a", 4)}, put("b", "x"), rng("a", "", true)), KVOutput{Succeeded: true, Rev: 7}, true,
			state(7, ent("a", "1", 1, 4, 4), ent("b", "x", 2, 7, 5))},
		{"compare on mod fails: the else branch reads", txn([]etcdtrace.Compare{modIs("a", 3)}, put("b", "x"), rng("a", "", true)),
			KVOutput{Rev: 5, KVs: []etcdtrace.ReadKV{kv(0, "a", "1", 4, 4, 1)}}, true, s0},
		{"compare on mod wrongly holds", txn([]etcdtrace.Compare{modIs("a", 3)}, put("b", "x")), KVOutput{Succeeded: true, Rev: 7}, false, nil},
		{"compare on an absent key's version", txn([]etcdtrace.Compare{{Key: "c", Target: etcdtrace.CmpVersion}}, put("c", "z")), KVOutput{Succeeded: true, Rev: 6}, true,
			state(6, ent("a", "1", 1, 4, 4), ent("b", "2", 1, 5, 5), ent("c", "z", 1, 6, 6))},
		{"compare on value", txn([]etcdtrace.Compare{{Key: "b", Target: etcdtrace.CmpValue, Value: "2"}}, del("a")), KVOutput{Succeeded: true, Rev: 6}, true,
			state(6, ent("b", "2", 1, 5, 5))},
		{"a txn's writes above the last write", txn(nil, put("a", "x")), KVOutput{Succeeded: true, Rev: 5}, false, nil},
		{"a read-only branch keeps the revision", txn([]etcdtrace.Compare{modIs("a", 1)}, put("a", "x"), rng("b", "", true)),
			KVOutput{Rev: 9, KVs: []etcdtrace.ReadKV{kv(0, "b", "2", 5, 5, 1)}}, true, s0},
		{"unknown txn applies its branch", txn([]etcdtrace.Compare{modIs("a", 4)}, put("a", "x"), rng("b", "", false)), KVOutput{Unknown: true}, true,
			state(5, kvEntry{key: "a", value: "x", version: 2, mod: kvRev{lo: 5}, create: revAt(4, 0)}, ent("b", "2", 1, 5, 5))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := s0.clone()
			ok, next := KVModel.Step(s0, tc.in, tc.out)
			require.Equal(t, tc.legal, ok)
			if ok {
				require.True(t, KVModel.Equal(tc.expect, next), "got %+v, want %+v", next, tc.expect)
			}
			require.Equal(t, before, s0, "Step must not change its input state")
		})
	}
}

func TestKVModelPartition(t *testing.T) {
	op := func(key string) porcupine.Operation {
		return porcupine.Operation{Input: KVInput{Kind: etcdtrace.OpGet, Key: key}, Output: KVOutput{}}
	}
	parts := KVModel.Partition([]porcupine.Operation{op("b"), op("a"), op("b")})
	require.Len(t, parts, 2)
	require.Equal(t, "a", parts[0][0].Input.(KVInput).Key)
	require.Len(t, parts[1], 2)

	evs := []porcupine.Event{
		{Kind: porcupine.CallEvent, Id: 0, Value: KVInput{Kind: etcdtrace.OpPut, Key: "b", Value: "1"}},
		{Kind: porcupine.CallEvent, Id: 1, Value: KVInput{Kind: etcdtrace.OpGet, Key: "a"}},
		{Kind: porcupine.ReturnEvent, Id: 0, Value: KVOutput{}},
		{Kind: porcupine.ReturnEvent, Id: 1, Value: KVOutput{}},
	}
	eparts := KVModel.PartitionEvent(evs)
	require.Len(t, eparts, 2)
	require.Len(t, eparts[0], 2)
	require.Equal(t, 1, eparts[0][1].Id)
	require.True(t, porcupine.CheckEvents(KVModel, evs))
}

// TestKVComponents: keys that a txn or a range touches together fall in
// one component; the others stay apart.
func TestKVComponents(t *testing.T) {
	ins := []KVInput{
		{Kind: etcdtrace.OpGet, Key: "a"},
		{Kind: etcdtrace.OpTxn, Ops: []etcdtrace.TxnOp{{Type: etcdtrace.TxnPut, Key: "b"}, {Type: etcdtrace.TxnDelete, Key: "c"}}},
		{Kind: etcdtrace.OpGet, Key: "c"},
		{Kind: etcdtrace.OpGet, Key: "d", End: "f"},
		{Kind: etcdtrace.OpPut, Key: "e"},
		{Kind: etcdtrace.OpGet, Key: "x", End: "y"},
		{Kind: etcdtrace.OpList, Key: "a", End: "z"},
		{Kind: etcdtrace.OpGet, Key: "g", Rev: 3},
	}
	names, comp := kvComponents(len(ins), func(i int) ([]string, []keyRange) { return kvTouch(ins[i], KVOutput{}) })
	require.Equal(t, []string{"", "[x..y)", "a", "b,c", "e"}, names)
	require.Equal(t, []int{2, 3, 3, 4, 4, 1, 0, 0}, comp)
}

func TestKVModelDescribe(t *testing.T) {
	require.Equal(t, `get("k") -> "v"`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true, Value: "v"}))
	require.Equal(t, `cas("k", <absent> -> "v") -> true`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true, Value: "v"}, KVOutput{Succeeded: true}))
	require.Equal(t, `put("k", "v") -> ?`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "v"}, KVOutput{Unknown: true}))
	require.Equal(t, `get("k".."l") -> [#0"k"="v"@3/2/2] rev=4`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpGet, Key: "k", End: "l"},
		KVOutput{Rev: 4, KVs: []etcdtrace.ReadKV{{Key: "k", Value: "v", ModRev: 3, CreateRev: 2, Version: 2}}}))
	require.Equal(t, `txn(if "a".mod=3 then put "a"="x" else range "a") -> true rev=5`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpTxn,
		Compares: []etcdtrace.Compare{{Key: "a", Target: etcdtrace.CmpMod, ModRev: 3}},
		Ops:      []etcdtrace.TxnOp{{Type: etcdtrace.TxnPut, Key: "a", Value: "x"}, {Type: etcdtrace.TxnRange, Key: "a", Else: true}}},
		KVOutput{Succeeded: true, Rev: 5}))
	require.Equal(t, "<absent>", KVModel.DescribeState(KVModel.Init()))
}
