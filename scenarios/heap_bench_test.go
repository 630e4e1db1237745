package scenarios_test

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/nodes/apptraffic"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// BenchmarkStackChaosHeap runs the full stack under chaos (the world of
// BenchmarkStackChaosRun) for 10 virtual minutes and for 1 virtual hour,
// at scenarios.GCPercent, and reports the peak live heap of each
// (live_MB_10m, live_MB_60m) and their ratio (live_60m/10m): memory that
// grows with the run's length shows as a ratio above 1. The live heap is
// sampled after a full collection at every virtual minute; the samples
// are taken between steps of the world, so the run is the same run (its
// trace hash is the one of an unsampled run).
func BenchmarkStackChaosHeap(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(scenarios.GCPercent))
	var peak10, peak60 float64
	for b.Loop() {
		peak10 = stackChaosPeakLive(b, 10*time.Minute)
		peak60 = stackChaosPeakLive(b, time.Hour)
	}
	b.ReportMetric(peak10, "live_MB_10m")
	b.ReportMetric(peak60, "live_MB_60m")
	b.ReportMetric(peak60/peak10, "live_60m/10m")
}

// BenchmarkStackChaosHeapDay is BenchmarkStackChaosHeap over a virtual
// day: the peak live heap of the first hour (live_MB_1h), of 24 hours
// (live_MB_24h) and their ratio (live_24h/1h), sampled every virtual
// minute. It takes minutes; docs/benchmarks.md records its figures.
func BenchmarkStackChaosHeapDay(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(scenarios.GCPercent))
	var peak1, peak24 float64
	for b.Loop() {
		peak1 = stackChaosPeakLive(b, time.Hour)
		peak24 = stackChaosPeakLive(b, 24*time.Hour)
	}
	b.ReportMetric(peak1, "live_MB_1h")
	b.ReportMetric(peak24, "live_MB_24h")
	b.ReportMetric(peak24/peak1, "live_24h/1h")
}

// stackChaosPeakLive runs the benchmark's stack-chaos world for virtual
// and returns its peak live heap in MB, sampled every virtual minute.
func stackChaosPeakLive(b *testing.B, virtual time.Duration) float64 {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	spec := catalogue.StackChaosSpec("stack-chaos-bench", 10, 18, 10, virtual)
	top := *spec.Stack
	top.Traffic = []apptraffic.Config{{Name: "users", Service: scenarios.WorkloadNamespace + "/web", PortName: "http",
		Rate: 20, Start: sim.Time(40 * time.Second)}}
	spec.Stack = &top
	p, err := scenarios.PrepareSpec(spec, scenarios.Options{Members: 5, Seed: 1, Duration: virtual})
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	sample := func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc-min(ms.HeapAlloc, base.HeapAlloc))
	}
	for t := time.Minute; t < virtual; t += time.Minute {
		p.World.Run(sim.Time(t))
		sample()
	}
	res, err := p.Run()
	if err != nil {
		b.Fatal(err)
	}
	if !res.OK {
		b.Fatalf("%v: %v", virtual, res.Failed())
	}
	sample()
	runtime.KeepAlive(p)
	return float64(peak) / (1 << 20)
}

// TestSampledRunIsTheSameRun: running a world in steps of a virtual
// minute, as BenchmarkStackChaosHeap does to sample the heap, gives the
// trace hash of running it at once.
func TestSampledRunIsTheSameRun(t *testing.T) {
	opts := scenarios.Options{Scenario: "etcd-chaos", Members: 3, Seed: 7, Duration: 3 * time.Minute}
	whole, err := scenarios.Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenarios.Prepare(opts)
	if err != nil {
		t.Fatal(err)
	}
	for at := time.Minute; at < opts.Duration; at += time.Minute {
		p.World.Run(sim.Time(at))
	}
	stepped, err := p.Run()
	if err != nil {
		t.Fatal(err)
	}
	if whole.TraceHash != stepped.TraceHash {
		t.Fatalf("stepped run's trace hash %s, whole run's %s", stepped.TraceHash, whole.TraceHash)
	}
}
