package scenarios_test

import (
	"testing"
	"time"

	"github.com/kubesim/kubesim/scenarios"
)

// BenchmarkEtcdChaosRun is one whole run of etcd-chaos with 5 members over
// 10 virtual minutes. It reports virtual seconds per wall second (the
// budget: at least 20,000x) and allocations per run.
func BenchmarkEtcdChaosRun(b *testing.B) {
	const virtual = 10 * time.Minute
	b.ReportAllocs()
	seed := uint64(0)
	for b.Loop() {
		seed++
		res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-chaos", Members: 5, Seed: seed, Duration: virtual})
		if err != nil {
			b.Fatal(err)
		}
		if !res.OK {
			b.Fatalf("seed %d failed: %v", seed, res.Failed())
		}
	}
	b.ReportMetric(virtual.Seconds()*float64(seed)/b.Elapsed().Seconds(), "virtual_s/wall_s")
}
