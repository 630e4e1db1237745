package sweep

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

func smallGrid() Grid {
	p, _ := nemesis.ParseProfile("crash-restart:mttf=20s,mttr=5s")
	return Grid{Scenario: "etcd-profile", Members: []int{1, 3}, Seeds: 3, SeedBase: 1,
		Profiles: []nemesis.Profile{p}, Duration: 30 * time.Second}
}

func lines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// TestSweepResumes: a sweep killed part way (simulated by stopping it and
// by a truncated last line) resumes without redoing a finished run, and a
// finished sweep run again changes nothing.
func TestSweepResumes(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Grid: smallGrid(), Out: dir, Parallel: 2}
	started := 0
	cfg.Stop = func() bool { started++; return started > 2 }
	sum, err := Run(cfg)
	require.NoError(t, err)
	require.True(t, sum.Interrupted)
	first := lines(t, sum.ResultsPath)
	require.NotEmpty(t, first)
	require.Less(t, len(first), 6)

	// A killed writer leaves half a line: it is cut off, not counted.
	f, err := os.OpenFile(sum.ResultsPath, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(first[0][:len(first[0])/2])
	require.NoError(t, err)
	require.NoError(t, f.Close())

	cfg.Stop = nil
	sum2, err := Run(cfg)
	require.NoError(t, err)
	require.False(t, sum2.Interrupted)
	require.Equal(t, len(first), sum2.Skipped, "finished runs are not redone")
	require.Equal(t, 6-len(first), sum2.Ran)
	all := lines(t, sum.ResultsPath)
	require.Len(t, all, 6)
	require.Equal(t, first, all[:len(first)], "nothing finished is lost or rewritten")

	before, err := os.ReadFile(sum.ResultsPath)
	require.NoError(t, err)
	sum3, err := Run(cfg)
	require.NoError(t, err)
	require.Equal(t, 6, sum3.Skipped)
	require.Zero(t, sum3.Ran)
	after, err := os.ReadFile(sum.ResultsPath)
	require.NoError(t, err)
	require.Equal(t, before, after, "a finished sweep run again changes nothing")
}

// TestShardsPartitionTheGrid: the shards of a grid are disjoint and cover
// it, and each shard's Len, Owns and Local agree with its positions.
func TestShardsPartitionTheGrid(t *testing.T) {
	g := smallGrid()
	total := g.Len()
	for _, n := range []int{1, 2, 4, 5, 7, 13} {
		seen := map[string]int{}
		for i := 0; i < n; i++ {
			sh := Shard{I: i, N: n}
			count := 0
			for p := range sh.Positions(total) {
				require.True(t, sh.Owns(p))
				require.Equal(t, count, sh.Local(p))
				seen[g.At(p).Key()]++
				count++
			}
			require.Equal(t, count, sh.Len(total), "shard %d/%d", i, n)
		}
		require.Len(t, seen, total)
		for k, c := range seen {
			require.Equal(t, 1, c, k)
		}
	}
	require.Equal(t, total, Shard{}.Len(total), "the zero shard is the whole grid")
	require.Equal(t, "results-shard-2-of-4.jsonl", Shard{I: 2, N: 4}.ResultsFile())
	require.Equal(t, "results.jsonl", Shard{I: 0, N: 1}.ResultsFile())
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "4/4", "-1/2", "a/b", "1/0", "01/2", "1/2/3"} {
		_, err := ParseShard(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "want i/n")
	}
	s, err := ParseShard("3/8")
	require.NoError(t, err)
	require.Equal(t, Shard{I: 3, N: 8}, s)
}

// TestSweepWritesFailuresToCorpus: a failing run becomes a corpus entry.
func TestSweepWritesFailuresToCorpus(t *testing.T) {
	dir := t.TempDir()
	g := Grid{Scenario: "etcd-flaky-network", Members: []int{3}, Seeds: 1, SeedBase: 1, Ablations: []string{"mvcc-ignore-compare"}}
	sum, err := Run(Config{Grid: g, Out: dir})
	require.NoError(t, err)
	require.Equal(t, 1, sum.Failed)
	entries, err := filepath.Glob(filepath.Join(dir, "corpus", "*.json"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	entry, _, err := scenarios.LoadCorpusEntry(entries[0])
	require.NoError(t, err)
	require.False(t, entry.Expect["linearizability"])
	require.True(t, strings.HasPrefix(entry.Note, "found by sweep: kubesim run --scenario etcd-flaky-network"))
}

// TestSweepRecordsAroundAPanic: a run that panics (a bug) is returned as a
// *PanicError with its stack, while every other run of the sweep is run
// and recorded.
func TestSweepRecordsAroundAPanic(t *testing.T) {
	defer func(f func(scenarios.Options) (scenarios.Result, error)) { runWorld = f }(runWorld)
	runWorld = func(o scenarios.Options) (scenarios.Result, error) {
		if o.Members == 3 && o.Seed == 2 {
			var s []int
			_ = s[o.Seed] // index out of range, as a bug would
		}
		return scenarios.Run(o)
	}
	sum, err := Run(Config{Grid: smallGrid(), Out: t.TempDir(), Parallel: 2})
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	require.Contains(t, err.Error(), "panic: runtime error: index out of range [2] with length 0")
	require.Contains(t, string(pe.Stack), "sweep_test.go")
	require.Equal(t, 5, sum.Ran)
	require.Len(t, lines(t, sum.ResultsPath), 5)
}
