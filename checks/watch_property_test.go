package checks

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// genWatchRun draws a committed history (as Apply events) and one watch
// stream that delivers it correctly, as groups of events per revision.
func genWatchRun(t *rapid.T) (steps []step, open *etcdtrace.WatchOpen, groups [][]etcdtrace.Change, lastRev int64) {
	keys := []string{"a", "b", "c", "d", "z"}
	type kv struct{ create, version int64 }
	live := map[string]kv{}
	rev := int64(1)
	var revs [][]etcdtrace.Change
	nRevs := rapid.IntRange(1, 30).Draw(t, "revs")
	for i := range nRevs {
		rev++
		var cs []etcdtrace.Change
		put := func(k string) {
			s, ok := live[k]
			if !ok {
				s = kv{create: rev}
			}
			s.version++
			live[k] = s
			cs = append(cs, cput(k, fmt.Sprintf("v%d", rev), s.create, rev, s.version))
		}
		for _, k := range keys {
			if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("touch%d%s", i, k)) != 0 {
				continue
			}
			if _, ok := live[k]; ok && rapid.Bool().Draw(t, fmt.Sprintf("del%d%s", i, k)) {
				delete(live, k)
				cs = append(cs, cdel(k, rev))
				continue
			}
			put(k)
		}
		if len(cs) == 0 {
			put("z")
		}
		revs = append(revs, cs)
		steps = append(steps, at(int64(i), apply("m1", uint64(i+1), rev, cs...)))
	}
	ranges := []keyRange{{"b", ""}, {"a", "c"}, {"b", "\x00"}, {"a", "\x00"}}
	kr := ranges[rapid.IntRange(0, len(ranges)-1).Draw(t, "range")]
	start := rapid.Int64Range(1, rev+1).Draw(t, "start")
	open = &etcdtrace.WatchOpen{Watcher: "w", Stream: 1, Member: "m1", Key: kr.key, End: kr.end, StartRev: start}
	for i, cs := range revs {
		r := int64(i + 2)
		if r < start {
			continue
		}
		var g []etcdtrace.Change
		for _, c := range cs {
			if kr.contains(c.Key) {
				g = append(g, c)
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return steps, open, groups, rev
}

// deliver builds the watch responses: consecutive groups batched at random,
// with a final progress notification at the last revision.
func deliver(t *rapid.T, open *etcdtrace.WatchOpen, groups [][]etcdtrace.Change, lastRev int64) []step {
	out := []step{at(100, open)}
	var batch []etcdtrace.Change
	for i, g := range groups {
		batch = append(batch, g...)
		if i == len(groups)-1 || rapid.Bool().Draw(t, fmt.Sprintf("flush%d", i)) {
			out = append(out, at(101, wresp(1, lastRev, batch...)))
			batch = nil
		}
	}
	return append(out, at(102, wprogress(1, lastRev)))
}

// TestWatchGuaranteesProperty: a correct delivery of a random history
// passes; dropping, repeating, reordering or splitting a revision fails.
func TestWatchGuaranteesProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		hist, open, groups, lastRev := genWatchRun(t)
		r := feed(NewWatchGuarantees(), append(hist, deliver(t, open, groups, lastRev)...)...)
		if !r.OK {
			t.Fatalf("correct delivery rejected: %s", r.String())
		}
		if len(groups) == 0 {
			return
		}
		i := rapid.IntRange(0, len(groups)-1).Draw(t, "victim")
		bad := append([][]etcdtrace.Change{}, groups...)
		switch m := rapid.IntRange(0, 3).Draw(t, "mutation"); {
		case m == 0:
			bad = append(bad[:i], bad[i+1:]...)
		case m == 1:
			bad = append(bad[:i+1], bad[i:]...)
		case m == 2 && i+1 < len(bad):
			bad[i], bad[i+1] = bad[i+1], bad[i]
		case m == 3 && len(bad[i]) > 1:
			split := [][]etcdtrace.Change{bad[i][:1], bad[i][1:]}
			bad = append(bad[:i], append(split, bad[i+1:]...)...)
		default:
			bad = bad[:i]
		}
		// Each group goes in its own response, so that a split shows.
		steps := append(hist, at(100, open))
		for _, g := range bad {
			steps = append(steps, at(101, wresp(1, lastRev, g...)))
		}
		steps = append(steps, at(102, wprogress(1, lastRev)))
		if r := feed(NewWatchGuarantees(), steps...); r.OK {
			t.Fatalf("broken delivery accepted: %s", r.String())
		}
	})
}
