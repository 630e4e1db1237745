package etcd

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
)

// genBytes draws a byte string; empty ones are nil, as decoding gives them.
func genBytes(t *rapid.T, label string) []byte {
	b := rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, label)
	if len(b) == 0 {
		return nil
	}
	return b
}

func genTxn(t *rapid.T, depth int) *mvcc.TxnRequest {
	txn := &mvcc.TxnRequest{}
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "compares"); i < n; i++ {
		txn.Compares = append(txn.Compares, mvcc.Compare{
			Key:            genBytes(t, "ckey"),
			RangeEnd:       genBytes(t, "cend"),
			Target:         mvcc.CompareTarget(rapid.Int32().Draw(t, "target")),
			Result:         mvcc.CompareResult(rapid.Int32().Draw(t, "result")),
			Version:        rapid.Int64().Draw(t, "version"),
			CreateRevision: rapid.Int64().Draw(t, "create"),
			ModRevision:    rapid.Int64().Draw(t, "mod"),
			Value:          genBytes(t, "cvalue"),
			Lease:          rapid.Int64().Draw(t, "clease"),
		})
	}
	genOps := func(label string) []mvcc.Op {
		var ops []mvcc.Op
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, label); i < n; i++ {
			op := mvcc.Op{
				Type:   mvcc.OpType(rapid.Byte().Draw(t, "type")),
				Key:    genBytes(t, "key"),
				End:    genBytes(t, "end"),
				Value:  genBytes(t, "value"),
				Range:  mvcc.RangeOptions{Rev: rapid.Int64().Draw(t, "rrev"), Limit: rapid.Int64().Draw(t, "limit"), CountOnly: rapid.Bool().Draw(t, "count"), KeysOnly: rapid.Bool().Draw(t, "keys")},
				Put:    mvcc.PutOptions{Lease: rapid.Int64().Draw(t, "lease"), PrevKV: rapid.Bool().Draw(t, "pprev"), IgnoreValue: rapid.Bool().Draw(t, "iv"), IgnoreLease: rapid.Bool().Draw(t, "il")},
				PrevKV: rapid.Bool().Draw(t, "prev"),
			}
			if depth < 2 && rapid.IntRange(0, 3).Draw(t, "nested") == 0 {
				op.Txn = genTxn(t, depth+1)
			}
			ops = append(ops, op)
		}
		return ops
	}
	txn.Success = genOps("success")
	txn.Failure = genOps("failure")
	return txn
}

func genWriteRequest(t *rapid.T) *writeRequest {
	w := &writeRequest{
		ID:     requestID{Client: rapid.StringN(0, 10, -1).Draw(t, "client"), Seq: rapid.Uint64().Draw(t, "seq")},
		Op:     writeOp(rapid.Byte().Draw(t, "op")),
		Key:    genBytes(t, "key"),
		End:    genBytes(t, "end"),
		Value:  genBytes(t, "value"),
		PrevKV: rapid.Bool().Draw(t, "prevkv"),
		Rev:    rapid.Int64().Draw(t, "rev"),
	}
	if rapid.Bool().Draw(t, "hastxn") {
		w.Txn = genTxn(t, 0)
	}
	return w
}

// TestProposalRoundTrip checks that every write request survives the
// proposal encoding, that the encoding is a function of the request, and
// that no strict prefix or extension of an encoding decodes.
func TestProposalRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := genWriteRequest(t)
		b := encodeProposal(w)
		require.Equal(t, b, encodeProposal(w), "encoding is deterministic")
		got, err := decodeProposal(b)
		require.NoError(t, err)
		require.Equal(t, w, got)
		cut := rapid.IntRange(0, len(b)-1).Draw(t, "cut")
		_, err = decodeProposal(b[:cut])
		require.Error(t, err, "a truncated proposal must not decode")
		_, err = decodeProposal(append(bytes.Clone(b), 0))
		require.Error(t, err, "trailing bytes must not decode")
	})
}

// TestProposalTable pins the encoding of the workload's request kinds.
func TestProposalTable(t *testing.T) {
	for _, w := range []*writeRequest{
		{ID: requestID{Client: "c1", Seq: 1}, Op: opPut, Key: []byte("k"), Value: []byte("v")},
		{ID: requestID{Client: "c1", Seq: 2}, Op: opDelete, Key: []byte("a"), End: []byte("z"), PrevKV: true},
		{ID: requestID{Client: "c2", Seq: 300}, Op: opCompact, Rev: 42},
		{ID: requestID{Client: "c3", Seq: 4}, Op: opTxn, Txn: &mvcc.TxnRequest{
			Compares: []mvcc.Compare{{Key: []byte("k"), Target: mvcc.CompareMod, Result: mvcc.CompareEqual, ModRevision: 7}},
			Success:  []mvcc.Op{mvcc.OpPutOf([]byte("k"), []byte("v2"), mvcc.PutOptions{})},
			Failure:  []mvcc.Op{mvcc.OpRangeOf([]byte("k"), nil, mvcc.RangeOptions{})},
		}},
	} {
		got, err := decodeProposal(encodeProposal(w))
		require.NoError(t, err)
		require.Equal(t, w, got)
	}
	require.Equal(t,
		[]byte{proposalMagic, 2, 'c', '1', 1, byte(opPut), 1, 'k', 0, 1, 'v', 0, 0},
		encodeProposal(&writeRequest{ID: requestID{Client: "c1", Seq: 1}, Op: opPut, Key: []byte("k"), Value: []byte("v")}))
	for _, bad := range [][]byte{nil, {}, []byte(`{"ID":{}}`), {proposalMagic}} {
		_, err := decodeProposal(bad)
		require.Error(t, err)
	}
}
