package mvcc

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmptyStoreStartsAtRevisionOne(t *testing.T) {
	s := New()
	assert.Equal(t, int64(1), s.Rev())
	assert.Equal(t, int64(-1), s.CompactRev())
	r, err := s.Range(b("a"), b("\x00"), RangeOptions{})
	require.NoError(t, err)
	assert.Equal(t, RangeResult{Rev: 1}, r)
}

func TestRevisionAndVersionSemantics(t *testing.T) {
	s := New()
	steps := []struct {
		name    string
		do      func() int64
		wantRev int64
		want    KeyValue
		gone    bool
	}{
		{"create", func() int64 { return put(t, s, "k", "v1") }, 2, kv("k", "v1", 2, 2, 1), false},
		{"update", func() int64 { return put(t, s, "k", "v2") }, 3, kv("k", "v2", 2, 3, 2), false},
		{"other key bumps revision", func() int64 { return put(t, s, "x", "y") }, 4, kv("k", "v2", 2, 3, 2), false},
		{"delete", func() int64 { del(t, s, "k", ""); return s.Rev() }, 5, KeyValue{}, true},
		{"delete nothing does not bump", func() int64 { del(t, s, "k", ""); return s.Rev() }, 5, KeyValue{}, true},
		{"recreate resets version", func() int64 { return put(t, s, "k", "v3") }, 6, kv("k", "v3", 6, 6, 1), false},
		{"empty value reads as nil", func() int64 { return put(t, s, "k", "") }, 7, kv("k", "", 6, 7, 2), false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			assert.Equal(t, st.wantRev, st.do())
			assert.Equal(t, st.wantRev, s.Rev())
			got, ok := get(t, s, "k", 0)
			assert.Equal(t, !st.gone, ok)
			if ok {
				assert.Equal(t, st.want, got)
			}
		})
	}
}

func TestRangeEndsLimitsAndOptions(t *testing.T) {
	s := New()
	for _, k := range []string{"a", "b", "ba", "bb", "c", "d"} {
		put(t, s, k, "val-"+k)
	}
	cases := []struct {
		name      string
		key, end  string
		opts      RangeOptions
		wantKeys  []string
		wantCount int64
		wantMore  bool
	}{
		{"single key", "b", "", RangeOptions{}, []string{"b"}, 1, false},
		{"missing single key", "bc", "", RangeOptions{}, []string{}, 0, false},
		{"half open", "b", "c", RangeOptions{}, []string{"b", "ba", "bb"}, 3, false},
		{"prefix", "b", "c", RangeOptions{Limit: 2}, []string{"b", "ba"}, 3, true},
		{"limit equal to count", "b", "c", RangeOptions{Limit: 3}, []string{"b", "ba", "bb"}, 3, false},
		{"from key", "bb", "\x00", RangeOptions{}, []string{"bb", "c", "d"}, 3, false},
		{"all keys", "\x00", "\x00", RangeOptions{}, []string{"a", "b", "ba", "bb", "c", "d"}, 6, false},
		{"end before key", "c", "b", RangeOptions{}, []string{}, 0, false},
		{"end equals key", "c", "c", RangeOptions{}, []string{}, 0, false},
		{"count only", "a", "\x00", RangeOptions{CountOnly: true, Limit: 1}, []string{}, 6, false},
		{"negative limit is no limit", "a", "c", RangeOptions{Limit: -1}, []string{"a", "b", "ba", "bb"}, 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := s.Range(b(c.key), b(c.end), c.opts)
			require.NoError(t, err)
			assert.Equal(t, c.wantKeys, keys(r.KVs))
			assert.Equal(t, c.wantCount, r.Count)
			assert.Equal(t, c.wantMore, r.More)
			assert.Equal(t, int64(7), r.Rev)
		})
	}
	t.Run("keys only drops values", func(t *testing.T) {
		r, err := s.Range(b("a"), b("b"), RangeOptions{KeysOnly: true})
		require.NoError(t, err)
		assert.Equal(t, []KeyValue{{Key: b("a"), CreateRevision: 2, ModRevision: 2, Version: 1}}, r.KVs)
	})
	t.Run("empty key is refused", func(t *testing.T) {
		_, err := s.Range(nil, b("\x00"), RangeOptions{})
		assert.ErrorIs(t, err, ErrEmptyKey)
	})
}

func TestPastRevisionReads(t *testing.T) {
	s := New()
	put(t, s, "a", "1") // 2
	put(t, s, "b", "1") // 3
	put(t, s, "a", "2") // 4
	del(t, s, "b", "")  // 5
	put(t, s, "b", "2") // 6
	cases := []struct {
		rev  int64
		want []KeyValue
	}{
		{1, nil},
		{2, []KeyValue{kv("a", "1", 2, 2, 1)}},
		{3, []KeyValue{kv("a", "1", 2, 2, 1), kv("b", "1", 3, 3, 1)}},
		{4, []KeyValue{kv("a", "2", 2, 4, 2), kv("b", "1", 3, 3, 1)}},
		{5, []KeyValue{kv("a", "2", 2, 4, 2)}},
		{6, []KeyValue{kv("a", "2", 2, 4, 2), kv("b", "2", 6, 6, 1)}},
		{0, []KeyValue{kv("a", "2", 2, 4, 2), kv("b", "2", 6, 6, 1)}},
	}
	for _, c := range cases {
		r, err := s.Range(b("a"), b("\x00"), RangeOptions{Rev: c.rev})
		require.NoError(t, err)
		assert.Equal(t, c.want, r.KVs, "rev %d", c.rev)
		assert.Equal(t, int64(6), r.Rev, "header is the current revision")
	}
}

func TestFutureAndCompactedReadErrors(t *testing.T) {
	s := New()
	for i := 0; i < 5; i++ {
		put(t, s, "k", "v") // revisions 2..6
	}
	require.NoError(t, s.Compact(4))
	cases := []struct {
		rev     int64
		wantErr error
	}{
		{7, ErrFutureRev},
		{6, nil},
		{4, nil}, // reading at the compact revision is allowed
		{3, ErrCompacted},
		{1, ErrCompacted},
	}
	for _, c := range cases {
		_, err := s.Range(b("k"), nil, RangeOptions{Rev: c.rev})
		if c.wantErr == nil {
			assert.NoError(t, err, "rev %d", c.rev)
			continue
		}
		assert.ErrorIs(t, err, c.wantErr, "rev %d", c.rev)
	}
	_, err := s.Range(b("k"), nil, RangeOptions{Rev: 2})
	var ce *CompactedError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, int64(4), ce.CompactRev)
	assert.Equal(t, "mvcc: required revision has been compacted", err.Error())
	_, err = s.Range(b("k"), nil, RangeOptions{Rev: 9})
	assert.Equal(t, "mvcc: required revision is a future revision", err.Error())
}

func TestPutOptions(t *testing.T) {
	s := New()
	r, err := s.Put(b("k"), b("v1"), PutOptions{Lease: 7, PrevKV: true})
	require.NoError(t, err)
	assert.Nil(t, r.PrevKV, "no previous version of a new key")

	r, err = s.Put(b("k"), b("v2"), PutOptions{PrevKV: true})
	require.NoError(t, err)
	require.NotNil(t, r.PrevKV)
	assert.Equal(t, KeyValue{Key: b("k"), Value: b("v1"), CreateRevision: 2, ModRevision: 2, Version: 1, Lease: 7}, *r.PrevKV)

	_, err = s.Put(b("k"), nil, PutOptions{IgnoreValue: true, Lease: 9})
	require.NoError(t, err)
	got, _ := get(t, s, "k", 0)
	assert.Equal(t, KeyValue{Key: b("k"), Value: b("v2"), CreateRevision: 2, ModRevision: 4, Version: 3, Lease: 9}, got)

	_, err = s.Put(b("k"), b("v3"), PutOptions{IgnoreLease: true})
	require.NoError(t, err)
	got, _ = get(t, s, "k", 0)
	assert.Equal(t, int64(9), got.Lease)

	errCases := []struct {
		name string
		key  string
		val  string
		opts PutOptions
		want error
	}{
		{"empty key", "", "v", PutOptions{}, ErrEmptyKey},
		{"ignore value on missing key", "nope", "", PutOptions{IgnoreValue: true}, ErrKeyNotFound},
		{"ignore lease on missing key", "nope", "v", PutOptions{IgnoreLease: true}, ErrKeyNotFound},
		{"ignore value with value", "k", "v", PutOptions{IgnoreValue: true}, ErrValueProvided},
		{"ignore lease with lease", "k", "v", PutOptions{IgnoreLease: true, Lease: 1}, ErrLeaseProvided},
	}
	for _, c := range errCases {
		t.Run(c.name, func(t *testing.T) {
			before := s.Rev()
			_, err := s.Put(b(c.key), b(c.val), c.opts)
			assert.ErrorIs(t, err, c.want)
			assert.Equal(t, before, s.Rev(), "a refused put writes nothing")
		})
	}
}

func TestDeleteRange(t *testing.T) {
	s := New()
	for _, k := range []string{"a", "b", "c", "d"} {
		put(t, s, k, "v"+k)
	}
	r, err := s.DeleteRange(b("b"), b("d"), true)
	require.NoError(t, err)
	assert.Equal(t, int64(6), r.Rev)
	assert.Equal(t, int64(2), r.Deleted)
	assert.Equal(t, []KeyValue{kv("b", "vb", 3, 3, 1), kv("c", "vc", 4, 4, 1)}, r.PrevKVs)

	r, err = s.DeleteRange(b("b"), b("d"), true)
	require.NoError(t, err)
	assert.Equal(t, DeleteResult{Rev: 6}, r, "deleting nothing keeps the revision")

	r, err = s.DeleteRange(b("a"), b("\x00"), false)
	require.NoError(t, err)
	assert.Equal(t, DeleteResult{Rev: 7, Deleted: 2}, r)
	rr, err := s.Range(b("\x00"), b("\x00"), RangeOptions{})
	require.NoError(t, err)
	assert.Empty(t, rr.KVs)

	_, err = s.DeleteRange(nil, nil, false)
	assert.ErrorIs(t, err, ErrEmptyKey)
}

func TestReturnedBytesDoNotAliasStore(t *testing.T) {
	s := New()
	val := []byte("value")
	put(t, s, "k", string(val))
	r, err := s.Range(b("k"), nil, RangeOptions{})
	require.NoError(t, err)
	r.KVs[0].Value[0] = 'X'
	r.KVs[0].Key[0] = 'X'
	got, ok := get(t, s, "k", 0)
	require.True(t, ok)
	assert.Equal(t, "value", string(got.Value))
}
