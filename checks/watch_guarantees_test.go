package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func cput(key, val string, create, mod, ver int64) etcdtrace.Change {
	return etcdtrace.Change{Type: "put", Key: key, Value: val, CreateRev: create, ModRev: mod, Version: ver}
}

func cdel(key string, mod int64) etcdtrace.Change {
	return etcdtrace.Change{Type: "delete", Key: key, ModRev: mod}
}

func apply(member string, index uint64, rev int64, cs ...etcdtrace.Change) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: member, Index: index, Term: 1, EntryHash: index, Rev: rev, Changes: cs}
}

func wopen(stream uint64, key, end string, start int64) *etcdtrace.WatchOpen {
	return &etcdtrace.WatchOpen{Watcher: "w", Stream: stream, Member: "m1", Key: key, End: end, StartRev: start}
}

func wresp(stream uint64, rev int64, evs ...etcdtrace.Change) *etcdtrace.WatchResp {
	return &etcdtrace.WatchResp{Watcher: "w", Stream: stream, Member: "m1", Rev: rev, Events: evs}
}

func wprogress(stream uint64, rev int64) *etcdtrace.WatchResp {
	return &etcdtrace.WatchResp{Watcher: "w", Stream: stream, Member: "m1", Rev: rev, Progress: true}
}

// The committed history: rev 4 changes two keys in one txn, rev 5 changes
// a key outside [a, c).
var (
	a2   = cput("a", "1", 2, 2, 1)
	b3   = cput("b", "1", 3, 3, 1)
	a4   = cput("a", "2", 2, 4, 2)
	b4   = cput("b", "2", 3, 4, 2)
	z5   = cput("z", "1", 5, 5, 1)
	a6   = cdel("a", 6)
	b7   = cput("b", "3", 3, 7, 3)
	hist = []step{
		at(1, apply("m1", 1, 2, a2)),
		at(2, apply("m1", 2, 3, b3)),
		at(3, apply("m1", 3, 4, a4, b4)),
		at(4, apply("m1", 4, 5, z5)),
		at(5, apply("m1", 5, 6, a6)),
		at(6, apply("m1", 6, 7, b7)),
		at(6, apply("m1", 7, 7)), // an entry that changes nothing
		at(7, apply("m2", 1, 2, a2)),
	}
)

func watchTrace(resps ...step) []step {
	out := append([]step{}, hist...)
	return append(out, resps...)
}

func TestWatchGuaranteesValid(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"range from start", watchTrace(
			at(10, wopen(1, "a", "c", 2)),
			at(11, wresp(1, 7, a2)), at(11, wresp(1, 7, b3)), at(12, wresp(1, 7, a4, b4)),
			at(13, wprogress(1, 5)), at(14, wresp(1, 7, a6)), at(14, wresp(1, 7, b7)), at(15, wprogress(1, 7)),
		)},
		{"several revisions in one response", watchTrace(
			at(10, wopen(1, "a", "c", 3)), at(11, wresp(1, 7, b3, a4, b4, a6)), at(12, wprogress(1, 6)),
		)},
		{"single key", watchTrace(
			at(10, wopen(1, "b", "", 1)), at(11, wresp(1, 7, b3, b4)), at(12, wprogress(1, 6)), at(13, wresp(1, 7, b7)),
		)},
		{"all keys from", watchTrace(
			at(10, wopen(1, "b", "\x00", 4)), at(11, wresp(1, 7, b4)), at(12, wresp(1, 7, z5)), at(13, wprogress(1, 6)),
		)},
		{"start now anchors at first event", watchTrace(
			at(10, wopen(1, "a", "c", 0)), at(11, wresp(1, 7, a6)), at(12, wresp(1, 7, b7)),
		)},
		{"start now anchors at progress", watchTrace(
			at(10, wopen(1, "a", "c", 0)), at(11, wprogress(1, 6)), at(12, wresp(1, 7, b7)),
		)},
		{"future start", watchTrace(
			at(10, wopen(1, "a", "c", 8)), at(11, wprogress(1, 7)),
		)},
		{"compacted start is canceled", append([]step{at(0, &etcdtrace.Apply{Member: "m1", Index: 9, Rev: 7, Compact: 5})}, watchTrace(
			at(10, wopen(1, "a", "c", 3)),
			at(11, &etcdtrace.WatchResp{Watcher: "w", Stream: 1, Member: "m1", Canceled: true, CompactRev: 5}),
			at(12, wopen(2, "a", "c", 5)), at(13, wresp(2, 7, a6)),
		)...)},
		{"response before its apply is checked later", []step{
			at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 2, a2)), at(12, apply("m1", 1, 2, a2)), at(13, wresp(1, 3, b3)), at(14, apply("m2", 2, 3, b3)),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewWatchGuarantees(), tc.steps...)
			require.True(t, r.OK, r.String())
			require.Equal(t, "watch-guarantees", r.Name)
		})
	}
}

func TestWatchGuaranteesPassDetail(t *testing.T) {
	r := feed(NewWatchGuarantees(), watchTrace(at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2, b3)), at(13, wprogress(1, 3)))...)
	require.True(t, r.OK, r.String())
	require.Equal(t, "1 streams, 2 responses with 2 events, 1 progress notifications, 0 cancellations, over 6 revisions with changes: ordered, unique, atomic, reliable, resumable, bookmarkable", r.Detail)
}

func TestWatchGuaranteesViolations(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		want  string
		seq   int // index (in the resps) of the first offending response
	}{
		{"gap", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2)), at(12, wresp(1, 7, a4, b4))},
			`Reliable: stream w/1 never got put "b"="1"@3/3/1, between rev 2 and its event at rev 4`, 2},
		{"duplicate", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2)), at(12, wresp(1, 7, b3)), at(13, wresp(1, 7, b3))},
			`Unique: stream w/1 got put "b"="1"@3/3/1 again`, 3},
		{"duplicate in one response", []step{at(10, wopen(1, "a", "c", 4)), at(11, wresp(1, 7, a4, a4, b4))},
			`Unique: stream w/1 got key "a" twice at rev 4`, 1},
		{"split revision", []step{at(10, wopen(1, "a", "c", 3)), at(11, wresp(1, 7, b3, a4)), at(12, wresp(1, 7, b4)), at(13, wresp(1, 7, a6))},
			`Atomic: stream w/1 got revision 4 split: 1 of its 2 matching changes in one response (without ["b"])`, 1},
		{"out of order", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2)), at(12, wresp(1, 7, a4, b4)), at(13, wresp(1, 7, b3))},
			`Ordered: stream w/1 got put "b"="1"@3/3/1 after an event at rev 4`, 3},
		{"out of order in one response", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2, a4, b4, b3))},
			`Ordered: stream w/1 got put "b"="1"@3/3/1 after an event at rev 4`, 1},
		{"sub-revision order", []step{at(10, wopen(1, "a", "c", 4)), at(11, wresp(1, 7, b4, a4))},
			"Ordered: stream w/1 got the changes of revision 4 out of order", 1},
		{"resumed from now instead of its revision", []step{at(10, wopen(1, "a", "c", 3)), at(11, wresp(1, 7, a6)), at(12, wresp(1, 7, b7))},
			`Resumable: stream w/1 from rev 3 never got put "b"="1"@3/3/1 before its first event at rev 6`, 1},
		{"event before start", []step{at(10, wopen(1, "a", "c", 3)), at(11, wresp(1, 7, a2, b3))},
			`Resumable: stream w/1 from rev 3 got put "a"="1"@2/2/1, before its start`, 1},
		{"progress before all events were delivered", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2)), at(12, wprogress(1, 4)), at(13, wresp(1, 7, a6))},
			`Bookmarkable: stream w/1 never got put "b"="1"@3/3/1 before its progress notification at rev 4`, 2},
		{"progress followed by an older event", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2)), at(12, wprogress(1, 3)), at(13, wresp(1, 7, b3))},
			`1 violation(s); first: Bookmarkable: stream w/1 got put "b"="1"@3/3/1 after a progress notification at rev 3`, 3},
		{"wrong value", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, cput("a", "x", 2, 2, 1)))},
			`Valid: stream w/1 got put "a"="x"@2/2/1, but the committed change is put "a"="1"@2/2/1`, 1},
		{"wrong version", []step{at(10, wopen(1, "a", "c", 3)), at(11, wresp(1, 7, b3, cput("a", "2", 2, 4, 1), b4))},
			"Valid", 1},
		{"key outside the range", []step{at(10, wopen(1, "a", "c", 5)), at(11, wresp(1, 7, z5))},
			`Valid: stream w/1 got key "z" outside its range`, 1},
		{"change that never happened", []step{at(10, wopen(1, "a", "c", 7)), at(11, wresp(1, 8, cput("a", "9", 8, 8, 1)))},
			`Valid: stream w/1 got put "a"="9"@8/8/1, which is not a committed change`, 1},
		{"response after cancel", []step{
			at(10, wopen(1, "a", "c", 2)), at(11, &etcdtrace.WatchResp{Watcher: "w", Stream: 1, Member: "m1", Canceled: true}), at(12, wresp(1, 7, a2)),
		}, "Canceled: stream w/1 got a response after its cancellation", 2},
		{"cancel for a start that is not compacted", []step{
			at(0, &etcdtrace.Apply{Member: "m1", Index: 9, Rev: 7, Compact: 3}),
			at(10, wopen(1, "a", "c", 4)), at(11, &etcdtrace.WatchResp{Watcher: "w", Stream: 1, Member: "m1", Canceled: true, CompactRev: 3}),
		}, "Resumable: stream w/1 from rev 4 canceled as compacted at 3, but its start is not below that", 2},
		{"cancel names a compaction that did not happen", []step{
			at(10, wopen(1, "a", "c", 2)), at(11, &etcdtrace.WatchResp{Watcher: "w", Stream: 1, Member: "m1", Canceled: true, CompactRev: 3}),
		}, "Resumable: stream w/1 canceled as compacted at 3, but member m1 had compacted only to 0", 1},
		{"compacted start not canceled", []step{
			at(0, &etcdtrace.Apply{Member: "m1", Index: 9, Rev: 7, Compact: 5}),
			at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a6)),
		}, "Resumable: stream w/1 from rev 2 was not canceled although member m1 had compacted to 5", 2},
		{"late event that never happened", []step{at(10, wopen(1, "a", "c", 2)), at(11, wresp(1, 7, a2, b3)), at(12, wresp(1, 7, cput("b", "x", 3, 3, 1)))},
			`Valid: stream w/1 got put "b"="x"@3/3/1 late, and it is not a committed change in its range`, 2},
		{"unopened stream", []step{at(11, wresp(9, 7, a2))}, "Protocol: watch response on stream w/9, which was never opened", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := feed(NewWatchGuarantees(), watchTrace(tc.steps...)...)
			require.False(t, r.OK, r.String())
			require.Contains(t, r.Detail, tc.want)
			require.Equal(t, uint64(len(hist)+tc.seq), r.Offenses[0].Seq, r.String())
		})
	}
}

func TestKeyRange(t *testing.T) {
	cases := []struct {
		kr   keyRange
		key  string
		want bool
	}{
		{keyRange{"a", ""}, "a", true},
		{keyRange{"a", ""}, "ab", false},
		{keyRange{"a", "c"}, "b", true},
		{keyRange{"a", "c"}, "c", false},
		{keyRange{"a", "c"}, "", false},
		{keyRange{"b", "\x00"}, "zzz", true},
		{keyRange{"b", "\x00"}, "a", false},
		{keyRange{"\x00", "\x00"}, "\x00", true},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, tc.kr.contains(tc.key), "%q in %q", tc.key, tc.kr)
	}
}

// TestWatchGuaranteesEntryAtOneRevision: an entry whose changes span
// revisions (a txn applied as separate writes) is an Atomic offense, once,
// and its changes still define their revisions, so that a watcher that got
// them at those revisions is reported nowhere else.
func TestWatchGuaranteesEntryAtOneRevision(t *testing.T) {
	split := []step{
		at(1, apply("m1", 1, 3, cput("a", "1", 2, 2, 1), cput("b", "1", 3, 3, 1))),
		at(2, apply("m2", 1, 3, cput("a", "1", 2, 2, 1), cput("b", "1", 3, 3, 1))),
		at(3, wopen(1, "a", "c", 2)),
		at(4, wresp(1, 2, cput("a", "1", 2, 2, 1))),
		at(5, wresp(1, 3, cput("b", "1", 3, 3, 1))),
	}
	r := feed(NewWatchGuarantees(), split...)
	require.False(t, r.OK)
	require.Len(t, r.Offenses, 1, r.String())
	require.Equal(t, `Atomic: member m1 applied entry 1 as several revisions (put "a"="1"@2/2/1 at rev 2, the entry's revision 3): its events cannot arrive in one response`, r.Offenses[0].What)

	r = feed(NewWatchGuarantees(), at(1, apply("m1", 1, 3, cput("a", "1", 3, 3, 1), cput("b", "1", 3, 3, 1))))
	require.True(t, r.OK, r.String())
}
