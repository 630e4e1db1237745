package conformance

import (
	"flag"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kubesim/kubesim/ablation"
)

var (
	flagSeeds = flag.Int("seeds", 0, "number of generated sequences (default 300, 30 with -short)")
	flagSeed  = flag.Int64("seed", -1, "replay only this seed")
	flagFirst = flag.Uint64("first-seed", 1, "first seed of the generated sequences")
	flagFresh = flag.Int("fresh-seeds", 0, "number of generated member and of snapshot sequences, each on a fresh oracle (default 10, 3 with -short)")
)

var (
	oracleOnce sync.Once
	oracle     *Oracle
	oracleErr  error
)

// getOracle starts the process's one embedded etcd on first use.
func getOracle(t *testing.T) *Oracle {
	t.Helper()
	oracleOnce.Do(func() {
		start := time.Now()
		oracle, oracleErr = StartOracle()
		if oracleErr == nil {
			t.Logf("embedded etcd ready in %v", time.Since(start).Round(time.Millisecond))
		}
	})
	if oracleErr != nil {
		t.Fatalf("embedded etcd: %v", oracleErr)
	}
	return oracle
}

func TestMain(m *testing.M) {
	code := m.Run()
	if oracle != nil {
		oracle.Close()
	}
	os.Exit(code)
}

// TestDifferential runs generated sequences against real etcd and the
// simulated member and fails on the first divergence of each failing seed.
func TestDifferential(t *testing.T) {
	o := getOracle(t)
	var seeds []uint64
	switch {
	case *flagSeed >= 0:
		seeds = []uint64{uint64(*flagSeed)}
	default:
		n := *flagSeeds
		if n <= 0 {
			n = 300
			if testing.Short() {
				n = 30
			}
		}
		for i := range n {
			seeds = append(seeds, *flagFirst+uint64(i))
		}
	}
	start := time.Now()
	failed := 0
	for _, seed := range seeds {
		d, err := RunSequence(o, seed, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if d != nil {
			t.Errorf("%s", d)
			if failed++; failed == 5 {
				t.Fatalf("stopping after %d diverging seeds", failed)
			}
		}
	}
	t.Logf("%d sequences in %v", len(seeds), time.Since(start).Round(time.Millisecond))
}

// regressions are sequences worth keeping: hand-written corner cases and
// divergences found by TestDifferential (paste the printed sequence here).
var regressions = []struct {
	name string
	ops  []Op
}{
	{"watch-from-compacted", []Op{
		{Kind: KPut, Key: "a", Value: "1"},
		{Kind: KPut, Key: "a", Value: "2"},
		{Kind: KDelete, Key: "a"},
		{Kind: KPut, Key: "b", Value: "3"},
		{Kind: KCompact, Rev: 4},
		{Kind: KWatch, Key: "a", End: "z", Rev: 3, PrevKV: true},
		{Kind: KWatch, Key: "a", End: "z", Rev: 4, PrevKV: true},
		{Kind: KGet, Key: "a", End: "z", Rev: 3},
		{Kind: KGet, Key: "a", End: "z", Rev: 4},
		{Kind: KGet, Key: "a", End: "z", Rev: 6},
		{Kind: KCompact, Rev: 4},
		{Kind: KCompact, Rev: 6},
		{Kind: KPut, Key: "a", Value: "4"},
	}},
	{"txn-duplicate-and-nested", []Op{
		{Kind: KPut, Key: "a", Value: "1"},
		{Kind: KTxn, Txn: &Txn{Then: []Op{{Kind: KPut, Key: "a", Value: "x"}, {Kind: KPut, Key: "a", Value: "y"}}}},
		{Kind: KTxn, Txn: &Txn{Then: []Op{{Kind: KPut, Key: "b", Value: "x"}, {Kind: KDelete, Key: "a", End: "c"}}}},
		{Kind: KTxn, Txn: &Txn{
			Cmps: []Cmp{{Key: "a", Target: "version", Result: "=", Num: 1}},
			Then: []Op{{Kind: KTxn, Txn: &Txn{
				Cmps: []Cmp{{Key: "b", Target: "create", Result: "=", Num: 0}},
				Then: []Op{{Kind: KPut, Key: "b", Value: "n", PrevKV: true}},
				Else: []Op{{Kind: KGet, Key: "a", End: "z"}},
			}}, {Kind: KGet, Key: "a", End: "z", CountOnly: true}},
		}},
		{Kind: KWatch, Key: "a", End: "z", Rev: 1, PrevKV: true},
	}},
}

func TestRegressions(t *testing.T) {
	o := getOracle(t)
	for i, r := range regressions {
		t.Run(r.name, func(t *testing.T) {
			d, err := RunSequence(o, uint64(1_000_000+i), r.ops)
			if err != nil {
				t.Fatal(err)
			}
			if d != nil {
				t.Errorf("%s", d)
			}
		})
	}
}

// TestCatchesAblations shows that the comparison notices a broken simulator:
// with each of the simulated member's ablations that changes answers, some
// of the first seeds must diverge.
func TestCatchesAblations(t *testing.T) {
	o := getOracle(t)
	for _, c := range []struct {
		name string
		abl  ablation.Set
	}{
		{"mvcc-ignore-compare", ablation.Of(ablation.IgnoreCompare)},
		{"watch-resume-from-now", ablation.Of(ablation.WatchResumeFromNow)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				d, err := runSequence(o, seed, nil, c.abl, genKV)
				if err != nil {
					t.Fatal(err)
				}
				if d != nil {
					t.Logf("caught at seed %d:\n%s", seed, d)
					return
				}
			}
			t.Fatalf("no divergence within 20 seeds")
		})
	}
}

// TestFormatSeqIsGo checks that printed ops look like the literals above.
func TestFormatSeqIsGo(t *testing.T) {
	got := FormatSeq(regressions[1].ops[1:2])
	want := "[]Op{\n\t{Kind: KTxn, Txn: &Txn{Then: []Op{{Kind: KPut, Key: \"a\", Value: \"x\"}, {Kind: KPut, Key: \"a\", Value: \"y\"}}}}, // 0\n}"
	if got != want {
		t.Fatalf("FormatSeq:\n%s\nwant:\n%s", got, want)
	}
}
