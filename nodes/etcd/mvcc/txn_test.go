package mvcc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
)

// txnStore holds k = "v5" with create 2, mod 3, version 2, lease 7, and a
// second key k2 = "v1" at revision 4.
func txnStore(t *testing.T) *Store {
	s := New()
	put(t, s, "k", "v1")
	_, err := s.Put(b("k"), b("v5"), PutOptions{Lease: 7})
	require.NoError(t, err)
	put(t, s, "k2", "v1")
	return s
}

func TestTxnCompareTargetsAndResults(t *testing.T) {
	type cmpCase struct {
		name string
		c    Compare
		want bool
	}
	on := func(key string, tgt CompareTarget, res CompareResult) Compare {
		return Compare{Key: b(key), Target: tgt, Result: res}
	}
	withVersion := func(c Compare, v int64) Compare { c.Version = v; return c }
	withCreate := func(c Compare, v int64) Compare { c.CreateRevision = v; return c }
	withMod := func(c Compare, v int64) Compare { c.ModRevision = v; return c }
	withLease := func(c Compare, v int64) Compare { c.Lease = v; return c }
	withValue := func(c Compare, v string) Compare { c.Value = b(v); return c }
	cases := []cmpCase{
		{"version equal", withVersion(on("k", CompareVersion, CompareEqual), 2), true},
		{"version equal wrong", withVersion(on("k", CompareVersion, CompareEqual), 1), false},
		{"version greater", withVersion(on("k", CompareVersion, CompareGreater), 1), true},
		{"version greater equal operand", withVersion(on("k", CompareVersion, CompareGreater), 2), false},
		{"version less", withVersion(on("k", CompareVersion, CompareLess), 3), true},
		{"version less wrong", withVersion(on("k", CompareVersion, CompareLess), 2), false},
		{"version not equal", withVersion(on("k", CompareVersion, CompareNotEqual), 1), true},
		{"version not equal wrong", withVersion(on("k", CompareVersion, CompareNotEqual), 2), false},
		{"create equal", withCreate(on("k", CompareCreate, CompareEqual), 2), true},
		{"create greater", withCreate(on("k", CompareCreate, CompareGreater), 2), false},
		{"create less", withCreate(on("k", CompareCreate, CompareLess), 3), true},
		{"create not equal", withCreate(on("k", CompareCreate, CompareNotEqual), 2), false},
		{"mod equal", withMod(on("k", CompareMod, CompareEqual), 3), true},
		{"mod greater", withMod(on("k", CompareMod, CompareGreater), 2), true},
		{"mod less", withMod(on("k", CompareMod, CompareLess), 3), false},
		{"mod not equal", withMod(on("k", CompareMod, CompareNotEqual), 4), true},
		{"value equal", withValue(on("k", CompareValue, CompareEqual), "v5"), true},
		{"value equal wrong", withValue(on("k", CompareValue, CompareEqual), "v1"), false},
		{"value greater is bytewise", withValue(on("k", CompareValue, CompareGreater), "v10"), true},
		{"value less", withValue(on("k", CompareValue, CompareLess), "v6"), true},
		{"value not equal", withValue(on("k", CompareValue, CompareNotEqual), "v5"), false},
		{"lease equal", withLease(on("k", CompareLease, CompareEqual), 7), true},
		{"lease greater", withLease(on("k", CompareLease, CompareGreater), 7), false},

		// A missing key compares as zeros, and fails every value compare.
		{"missing version equal 0", on("nope", CompareVersion, CompareEqual), true},
		{"missing version greater 0", on("nope", CompareVersion, CompareGreater), false},
		{"missing version less 1", withVersion(on("nope", CompareVersion, CompareLess), 1), true},
		{"missing create equal 0", on("nope", CompareCreate, CompareEqual), true},
		{"missing mod equal 0", on("nope", CompareMod, CompareEqual), true},
		{"missing mod not equal 5", withMod(on("nope", CompareMod, CompareNotEqual), 5), true},
		{"missing lease equal 0", on("nope", CompareLease, CompareEqual), true},
		{"missing value equal empty", on("nope", CompareValue, CompareEqual), false},
		{"missing value not equal", withValue(on("nope", CompareValue, CompareNotEqual), "x"), false},
		{"missing value less", withValue(on("nope", CompareValue, CompareLess), "x"), false},

		// With a range end, every live key must satisfy the compare.
		{"range all version > 0", Compare{Key: b("k"), RangeEnd: b("l"), Target: CompareVersion, Result: CompareGreater}, true},
		{"range one fails", Compare{Key: b("k"), RangeEnd: b("l"), Target: CompareValue, Result: CompareEqual, Value: b("v1")}, false},
		{"range from key value", Compare{Key: b("k"), RangeEnd: b("\x00"), Target: CompareValue, Result: CompareGreater, Value: b("v0")}, true},
		{"empty range version 0", Compare{Key: b("x"), RangeEnd: b("y"), Target: CompareVersion, Result: CompareEqual}, true},
		{"empty range value", Compare{Key: b("x"), RangeEnd: b("y"), Target: CompareValue, Result: CompareNotEqual, Value: b("a")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := txnStore(t)
			resp, err := s.Txn(TxnRequest{
				Compares: []Compare{c.c},
				Success:  []Op{OpPutOf(b("ok"), b("yes"), PutOptions{})},
				Failure:  []Op{OpPutOf(b("ok"), b("no"), PutOptions{})},
			})
			require.NoError(t, err)
			assert.Equal(t, c.want, resp.Succeeded)
			got, _ := get(t, s, "ok", 0)
			if c.want {
				assert.Equal(t, "yes", string(got.Value))
			} else {
				assert.Equal(t, "no", string(got.Value))
			}
		})
	}
}

func TestTxnGroupsChangesAtOneRevision(t *testing.T) {
	s := txnStore(t) // revision 4
	resp, err := s.Txn(TxnRequest{
		Compares: []Compare{{Key: b("k"), Target: CompareMod, Result: CompareEqual, ModRevision: 3}},
		Success: []Op{
			OpRangeOf(b("k"), nil, RangeOptions{}),
			OpPutOf(b("a"), b("1"), PutOptions{}),
			OpRangeOf(b("a"), nil, RangeOptions{}),
			OpDeleteOf(b("k2"), nil, true),
			OpDeleteOf(b("zz"), nil, false),
			OpPutOf(b("k"), b("v6"), PutOptions{PrevKV: true}),
		},
	})
	require.NoError(t, err)
	assert.True(t, resp.Succeeded)
	assert.Equal(t, int64(5), resp.Rev)
	assert.Equal(t, int64(5), s.Rev())
	require.Len(t, resp.Responses, 6)
	assert.Equal(t, int64(4), resp.Responses[0].Range.Rev, "read before any change sees the old revision")
	assert.Equal(t, int64(5), resp.Responses[1].Put.Rev)
	assert.Equal(t, []KeyValue{kv("a", "1", 5, 5, 1)}, resp.Responses[2].Range.KVs, "a txn reads its own writes")
	assert.Equal(t, int64(5), resp.Responses[2].Range.Rev)
	assert.Equal(t, DeleteResult{Rev: 5, Deleted: 1, PrevKVs: []KeyValue{kv("k2", "v1", 4, 4, 1)}}, *resp.Responses[3].Delete)
	assert.Equal(t, DeleteResult{Rev: 5}, *resp.Responses[4].Delete)
	assert.Equal(t, "v5", string(resp.Responses[5].Put.PrevKV.Value))

	got, _ := get(t, s, "k", 0)
	assert.Equal(t, KeyValue{Key: b("k"), Value: b("v6"), CreateRevision: 2, ModRevision: 5, Version: 3}, got)
	got, _ = get(t, s, "a", 0)
	assert.Equal(t, kv("a", "1", 5, 5, 1), got)
}

func TestTxnReadOnlyAndNoOpDoNotBump(t *testing.T) {
	s := txnStore(t)
	resp, err := s.Txn(TxnRequest{Success: []Op{OpRangeOf(b("k"), nil, RangeOptions{})}})
	require.NoError(t, err)
	assert.Equal(t, int64(4), resp.Rev)
	resp, err = s.Txn(TxnRequest{Success: []Op{OpDeleteOf(b("nope"), nil, false)}})
	require.NoError(t, err)
	assert.Equal(t, int64(4), resp.Rev)
	resp, err = s.Txn(TxnRequest{})
	require.NoError(t, err)
	assert.Equal(t, TxnResponse{Succeeded: true, Responses: []OpResponse{}, Rev: 4}, resp)
	assert.Equal(t, int64(4), s.Rev())
}

func TestNestedTxnComparesSeeStateBeforeTxn(t *testing.T) {
	s := txnStore(t)
	inner := TxnRequest{
		// Evaluated before the outer put of "new": it is still missing.
		Compares: []Compare{{Key: b("new"), Target: CompareVersion, Result: CompareEqual, Version: 0}},
		Success:  []Op{OpPutOf(b("inner"), b("then"), PutOptions{})},
		Failure:  []Op{OpPutOf(b("inner"), b("else"), PutOptions{})},
	}
	resp, err := s.Txn(TxnRequest{Success: []Op{OpPutOf(b("new"), b("x"), PutOptions{}), OpTxnOf(inner)}})
	require.NoError(t, err)
	require.NotNil(t, resp.Responses[1].Txn)
	assert.True(t, resp.Responses[1].Txn.Succeeded)
	assert.Equal(t, int64(0), resp.Responses[1].Txn.Rev, "etcd leaves nested headers empty")
	assert.Equal(t, int64(5), resp.Responses[1].Txn.Responses[0].Put.Rev)
	got, _ := get(t, s, "inner", 0)
	assert.Equal(t, "then", string(got.Value))
}

func TestTxnRequestChecks(t *testing.T) {
	put2 := func(k string) Op { return OpPutOf(b(k), b("v"), PutOptions{}) }
	many := make([]Op, DefaultMaxTxnOps+1)
	for i := range many {
		many[i] = OpRangeOf(b("k"), nil, RangeOptions{})
	}
	cases := []struct {
		name string
		req  TxnRequest
		want error
	}{
		{"duplicate put", TxnRequest{Success: []Op{put2("a"), put2("a")}}, ErrDuplicateKey},
		{"put inside delete range", TxnRequest{Success: []Op{OpDeleteOf(b("a"), b("c"), false), put2("b")}}, ErrDuplicateKey},
		{"put then delete same key", TxnRequest{Failure: []Op{put2("a"), OpDeleteOf(b("a"), nil, false)}}, ErrDuplicateKey},
		{"nested put collides", TxnRequest{Success: []Op{put2("a"), OpTxnOf(TxnRequest{Success: []Op{put2("a")}})}}, ErrDuplicateKey},
		{"nested delete collides", TxnRequest{Success: []Op{put2("a"), OpTxnOf(TxnRequest{Failure: []Op{OpDeleteOf(b("a"), nil, false)}})}}, ErrDuplicateKey},
		{"too many ops", TxnRequest{Success: many}, ErrTooManyOps},
		{"empty compare key", TxnRequest{Compares: []Compare{{}}}, ErrEmptyKey},
		{"empty op key", TxnRequest{Success: []Op{OpRangeOf(nil, nil, RangeOptions{})}}, ErrEmptyKey},
		{"empty op", TxnRequest{Success: []Op{{}}}, ErrKeyNotFound},
		{"future range rev", TxnRequest{Success: []Op{put2("z"), OpRangeOf(b("k"), nil, RangeOptions{Rev: 5})}}, ErrFutureRev},
		{"ignore value on missing key", TxnRequest{Success: []Op{OpPutOf(b("nope"), nil, PutOptions{IgnoreValue: true})}}, ErrKeyNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := txnStore(t)
			h := s.Hash()
			_, err := s.Txn(c.req)
			assert.ErrorIs(t, err, c.want)
			assert.Equal(t, int64(4), s.Rev(), "a refused txn writes nothing")
			assert.Equal(t, h, s.Hash())
		})
	}
	t.Run("allowed overlaps", func(t *testing.T) {
		s := txnStore(t)
		_, err := s.Txn(TxnRequest{Success: []Op{
			OpDeleteOf(b("a"), nil, false), OpDeleteOf(b("a"), b("c"), false),
			OpTxnOf(TxnRequest{Success: []Op{put2("x")}, Failure: []Op{put2("x")}}),
		}})
		assert.NoError(t, err, "then and else branches may put the same key; deletes may overlap")
		_, err = s.Txn(TxnRequest{Success: []Op{put2("a")}, Failure: []Op{put2("a")}})
		assert.NoError(t, err)
	})
	t.Run("checks only the branch taken", func(t *testing.T) {
		s := txnStore(t)
		_, err := s.Txn(TxnRequest{
			Compares: []Compare{{Key: b("k"), Target: CompareVersion, Result: CompareEqual, Version: 2}},
			Failure:  []Op{OpRangeOf(b("k"), nil, RangeOptions{Rev: 99})},
		})
		assert.NoError(t, err)
	})
}

// TestIgnoreCompareAblationBreaksCAS shows that the ablation turns
// compare-and-swap into last-write-wins: two clients read the same mod
// revision and both succeed, so one update is lost.
func TestIgnoreCompareAblationBreaksCAS(t *testing.T) {
	for _, ablate := range []bool{false, true} {
		s := New()
		s.Ablations = ablation.When(ablate, ablation.IgnoreCompare)
		put(t, s, "counter", "0")
		seen, _ := get(t, s, "counter", 0)
		cas := func(v string) bool {
			resp, err := s.Txn(TxnRequest{
				Compares: []Compare{{Key: b("counter"), Target: CompareMod, Result: CompareEqual, ModRevision: seen.ModRevision}},
				Success:  []Op{OpPutOf(b("counter"), b(v), PutOptions{})},
			})
			require.NoError(t, err)
			return resp.Succeeded
		}
		first, second := cas("1"), cas("1")
		assert.True(t, first)
		if ablate {
			assert.True(t, second, "ablated: the stale CAS wins too (lost update)")
		} else {
			assert.False(t, second, "the stale CAS must fail")
		}
	}
}
