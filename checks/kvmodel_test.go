package checks

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
)

func TestKVModelStep(t *testing.T) {
	absent, one := kvState{}, kvState{present: true, value: "1", version: 1}
	cases := []struct {
		name   string
		state  kvState
		in     KVInput
		out    KVOutput
		legal  bool
		expect kvState
	}{
		{"get absent", absent, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{}, true, absent},
		{"get absent but found", absent, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true}, false, absent},
		{"get value", one, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true, Value: "1"}, true, one},
		{"get value and version", one, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true, Value: "1", Version: 1}, true, one},
		{"get version of a write applied twice", one, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true, Value: "1", Version: 2}, false, one},
		{"put bumps the version", one, KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{}, true, kvState{true, "1", 2}},
		{"get stale value", one, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true, Value: "0"}, false, one},
		{"get lost value", one, KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{}, false, one},
		{"put", absent, KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{}, true, one},
		{"delete present", one, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{Succeeded: true}, true, absent},
		{"delete absent", absent, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{}, true, absent},
		{"delete absent claims success", absent, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{Succeeded: true}, false, absent},
		{"cas holds", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "1", Value: "2"}, KVOutput{Succeeded: true}, true, kvState{true, "2", 2}},
		{"cas fails", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "0", Value: "2"}, KVOutput{}, true, one},
		{"cas wrongly succeeds", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "0", Value: "2"}, KVOutput{Succeeded: true}, false, kvState{true, "2", 2}},
		{"cas wrongly fails", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "1", Value: "2"}, KVOutput{}, false, one},
		{"cas absent holds", absent, KVInput{Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true, Value: "1"}, KVOutput{Succeeded: true}, true, one},
		{"cas absent on present", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true, Value: "2"}, KVOutput{}, true, one},
		{"cas expect empty on absent", absent, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "", Value: "1"}, KVOutput{}, true, absent},
		{"unknown put applies", absent, KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "1"}, KVOutput{Unknown: true}, true, one},
		{"unknown cas applies if it holds", one, KVInput{Kind: etcdtrace.OpCAS, Key: "k", Expect: "1", Value: "2"}, KVOutput{Unknown: true}, true, kvState{true, "2", 2}},
		{"unknown delete", one, KVInput{Kind: etcdtrace.OpDelete, Key: "k"}, KVOutput{Unknown: true}, true, absent},
		{"unknown kind", one, KVInput{Kind: "txn", Key: "k"}, KVOutput{}, false, one},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.state
			ok, next := KVModel.Step(tc.state, tc.in, tc.out)
			require.Equal(t, tc.legal, ok)
			if ok {
				require.Equal(t, tc.expect, next)
			}
			require.Equal(t, before, tc.state, "Step must not change its input state")
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

func TestKVModelDescribe(t *testing.T) {
	require.Equal(t, `get("k") -> "v"`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpGet, Key: "k"}, KVOutput{Found: true, Value: "v"}))
	require.Equal(t, `cas("k", <absent> -> "v") -> true`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true, Value: "v"}, KVOutput{Succeeded: true}))
	require.Equal(t, `put("k", "v") -> ?`, KVModel.DescribeOperation(KVInput{Kind: etcdtrace.OpPut, Key: "k", Value: "v"}, KVOutput{Unknown: true}))
	require.Equal(t, "<absent>", KVModel.DescribeState(KVModel.Init()))
}
