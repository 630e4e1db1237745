package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func kvh(member string, applied uint64, rev int64, hash uint64) *etcdtrace.KVHash {
	return &etcdtrace.KVHash{Member: member, Applied: applied, Rev: rev, CompactRev: 2, Hash: hash}
}

func TestKVAgreement(t *testing.T) {
	cases := []struct {
		name  string
		opts  []KVAgreementOption
		steps []step
		ok    bool
		want  string
	}{
		{name: "all agree", steps: []step{at(1, kvh("m1", 10, 7, 0xab)), at(1, kvh("m2", 11, 7, 0xab)), at(2, kvh("m3", 10, 7, 0xab))},
			ok: true, want: "3 members agree on rev=7 compact=2 hash=ab (3 reports)"},
		{name: "last report counts", steps: []step{at(1, kvh("m1", 9, 6, 0x1)), at(1, kvh("m2", 10, 7, 0xab)), at(2, kvh("m1", 10, 7, 0xab))},
			ok: true, want: "2 members agree"},
		{name: "one member differs", steps: []step{at(1, kvh("m1", 10, 7, 0xab)), at(1, kvh("m2", 10, 7, 0xcd)), at(2, kvh("m3", 10, 7, 0xab))},
			want: "kv agreement: member m2 has rev=7 compact=2 hash=cd (applied 10), but m1,m3 have rev=7 compact=2 hash=ab"},
		{name: "a member lags", steps: []step{at(1, kvh("m1", 8, 5, 0x55)), at(1, kvh("m2", 10, 7, 0xab)), at(2, kvh("m3", 10, 7, 0xab))},
			want: "member m1 has rev=5"},
		{name: "compaction differs", steps: []step{at(1, kvh("m1", 10, 7, 0xab)), at(2, &etcdtrace.KVHash{Member: "m2", Applied: 10, Rev: 7, CompactRev: 3, Hash: 0xab})},
			want: "member m2 has rev=7 compact=3 hash=ab"},
		{name: "no reports", want: "no KVHash reports"},
		{name: "no reports allowed", opts: []KVAgreementOption{AllowNoKVHash()}, ok: true, want: "no KVHash reports (allowed)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewKVAgreement(tc.opts...), tc.steps...)
			require.Equal(t, "kv-agreement", r.Name)
			require.Equal(t, tc.ok, r.OK, r.String())
			require.Contains(t, r.Detail, tc.want)
		})
	}
}
