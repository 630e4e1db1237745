package checks

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// TestCommittedHistoryFoldAnswersAboveTheFold: on a random history of
// puts and deletes (several keys a revision), folded at random points as
// it grows, every question at or above the fold (a key's state and a
// range's state there; above it, the changes at a revision and those of
// a range between two revisions) gets the answer of the unfolded history,
// and what is kept below the fold is at most one version a live key.
func TestCommittedHistoryFoldAnswersAboveTheFold(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		whole, folded := newCommittedHistory(), newCommittedHistory()
		keys := []string{"a", "b", "b/1", "b/2", "c"}
		version := map[string]int64{}
		created := map[string]int64{}
		revs := rapid.IntRange(1, 60).Draw(t, "revs")
		for r := int64(2); r <= int64(revs)+1; r++ {
			var cs []etcdtrace.Change
			for _, k := range keys {
				switch rapid.IntRange(0, 5).Draw(t, "op") {
				case 0:
					if version[k] > 0 {
						cs = append(cs, etcdtrace.Change{Type: etcdtrace.ChangeDelete, Key: k, ModRev: r})
						version[k], created[k] = 0, 0
					}
				case 1, 2:
					if version[k] == 0 {
						created[k] = r
					}
					version[k]++
					cs = append(cs, etcdtrace.Change{Type: etcdtrace.ChangePut, Key: k, Value: fmt.Sprint(r), ModRev: r, CreateRev: created[k], Version: version[k]})
				}
			}
			for _, h := range []*committedHistory{&whole, &folded} {
				h.apply(&etcdtrace.Apply{Member: "m", Rev: r, Changes: cs})
			}
			if rapid.IntRange(0, 4).Draw(t, "fold?") == 0 {
				folded.fold(rapid.Int64Range(0, r+2).Draw(t, "fold"))
			}
		}
		base := folded.base
		all := keyRange{key: "", end: "\x00"}
		for r := base; r <= whole.maxRev+1; r++ {
			for _, k := range keys {
				w, wok := whole.stateAt(k, r)
				f, fok := folded.stateAt(k, r)
				require.Equal(t, wok, fok, "%s at %d", k, r)
				if wok {
					require.Equal(t, w, f, "%s at %d", k, r)
				}
			}
			for _, kr := range []keyRange{all, {key: "b", end: "c"}, {key: "b/1"}} {
				require.Equal(t, whole.rangeAt(kr, r), folded.rangeAt(kr, r), "range %v at %d", kr, r)
				if r > base {
					require.Equal(t, whole.matching(nil, r, kr), folded.matching(nil, r, kr))
					var w, f []int64
					whole.eachMatching(r, whole.maxRev, kr, func(r int64, _ []etcdtrace.Change) { w = append(w, r) })
					folded.eachMatching(r, whole.maxRev, kr, func(r int64, _ []etcdtrace.Change) { f = append(f, r) })
					require.Equal(t, w, f)
				}
			}
		}
		require.Equal(t, whole.known, folded.known)
		require.LessOrEqual(t, int64(len(folded.revs)), max(whole.top()-base, 0))
		require.LessOrEqual(t, len(folded.floor), len(keys))
		require.Len(t, folded.keys, len(folded.byKey))
	})
}

// TestWatchGuaranteesFoldsAtCompactions: once every member has compacted,
// the watch-guarantees check keeps the history only from the lowest
// compaction, unless a live stream still needs it from lower, and a
// stream judged after the fold is judged as before.
func TestWatchGuaranteesFoldsAtCompactions(t *testing.T) {
	c := NewWatchGuarantees()
	seq := uint64(0)
	obs := func(d sim.Data) {
		seq++
		c.Observe(&sim.Event{Seq: seq, At: sim.Time(seq), Kind: sim.KindNode, Data: d})
	}
	compact := func(member string, index uint64, to int64) *etcdtrace.Apply {
		return &etcdtrace.Apply{Member: member, Index: index, Term: 1, EntryHash: index, Rev: 7, Compact: to}
	}
	for _, s := range hist[:6] {
		obs(s.data)
	}
	obs(hist[7].data) // m2 applies rev 2
	obs(wopen(1, "a", "c", 4))
	obs(compact("m1", 8, 6))
	require.Equal(t, int64(0), c.hist.base, "m2 has not compacted")
	obs(compact("m2", 8, 5))
	require.Equal(t, int64(3), c.hist.base, "stream 1 still needs rev 4 on")
	obs(wresp(1, 7, a4, b4))
	obs(wresp(1, 7, a6))
	obs(compact("m2", 9, 6))
	require.Equal(t, int64(6), c.hist.base, "stream 1 is at rev 7")
	obs(wresp(1, 7, b7))
	res := c.Finish()
	require.True(t, res.OK, "%v", res)
	require.Equal(t, map[string]etcdtrace.Change{"b": b4, "z": z5}, c.hist.floor)
	require.Equal(t, []etcdtrace.Change{b7}, c.hist.revs[0], "from rev 7 on")
}
