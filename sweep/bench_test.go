package sweep

import (
	"runtime"
	"testing"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// benchGrid is 24 runs of one virtual minute of etcd-profile.
func benchGrid(base uint64) Grid {
	p, _ := nemesis.ParseProfile(scenarios.DefaultProfile)
	return Grid{Scenario: "etcd-profile", Members: []int{3, 5}, Seeds: 12, SeedBase: base,
		Profiles: []nemesis.Profile{p}, Duration: time.Minute}
}

// BenchmarkSweep measures sweep throughput in runs per second on one core
// (GOMAXPROCS=1, one world at a time, so the garbage collector shares that
// core too) and on all cores (one world per core), each op a fresh 24-run
// sweep into a new directory. The "cores" sub-benchmark also reports x_one_core: its
// runs/s over the one-core figure measured just before it, in the same run
// (budget: at least 1.8 on 2 cores).
func BenchmarkSweep(b *testing.B) {
	var oneCore float64
	for _, c := range []struct {
		name     string
		parallel int
	}{{"parallel=1", 1}, {"parallel=cores", runtime.NumCPU()}} {
		b.Run(c.name, func(b *testing.B) {
			if c.parallel == 1 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			}
			runs, base := 0, uint64(1)
			for b.Loop() {
				sum, err := Run(Config{Grid: benchGrid(base), Parallel: c.parallel, Out: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				runs += sum.Ran
				base += 1000
			}
			rate := float64(runs) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "runs/s")
			if c.parallel == 1 {
				oneCore = rate
			} else if oneCore > 0 {
				b.ReportMetric(rate/oneCore, "x_one_core")
			}
		})
	}
}
