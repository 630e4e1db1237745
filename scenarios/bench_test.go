package scenarios_test

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/nodes/apptraffic"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// BenchmarkEtcdChaosRun is one whole run of etcd-chaos with 5 members over
// 10 virtual minutes. It reports virtual seconds per wall second (the
// budget: at least 20,000x) and allocations per run.
func BenchmarkEtcdChaosRun(b *testing.B) {
	const virtual = 10 * time.Minute
	b.ReportAllocs()
	seed := uint64(0)
	var events uint64
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		seed++
		res, err := scenarios.Run(scenarios.Options{Scenario: "etcd-chaos", Members: 5, Seed: seed, Duration: virtual})
		if err != nil {
			b.Fatal(err)
		}
		if !res.OK {
			b.Fatalf("seed %d failed: %v", seed, res.Failed())
		}
		events += res.Events
	}
	b.ReportMetric(virtual.Seconds()*float64(seed)/b.Elapsed().Seconds(), "virtual_s/wall_s")
	reportPerEvent(b, events, before)
}

// BenchmarkAPIChaosRun is one whole run of an api-chaos world with 5 etcd
// members, 3 API servers, 20 writers (10 counter writers on one counter,
// 10 CRUD clients) and 20 informer hosts (each informing on leases and
// pods) over 10 virtual minutes, all checks included. It reports virtual
// seconds per wall second.
func BenchmarkAPIChaosRun(b *testing.B) {
	spec := scenarios.Spec{Name: "api-chaos-bench", Description: "api-chaos at benchmark size",
		API: &scenarios.APITopology{Counters: 10, CRUD: 10, Informers: 20, Rogue: true}, Faults: nemesis.APIChaosSchedule}
	benchSpec(b, spec, 5, 10*time.Minute)
}

// benchSpec runs whole runs of spec with members etcd members, each
// virtual long, and reports virtual seconds per wall second and events per
// run. Every run must pass every check.
func benchSpec(b *testing.B, spec scenarios.Spec, members int, virtual time.Duration) {
	b.ReportAllocs()
	seed := uint64(0)
	var events uint64
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		seed++
		p, err := scenarios.PrepareSpec(spec, scenarios.Options{Members: members, Seed: seed, Duration: virtual})
		if err != nil {
			b.Fatal(err)
		}
		res, err := p.Run()
		if err != nil {
			b.Fatal(err)
		}
		if !res.OK {
			b.Fatalf("seed %d failed: %v", seed, res.Failed())
		}
		events += res.Events
	}
	b.ReportMetric(virtual.Seconds()*float64(seed)/b.Elapsed().Seconds(), "virtual_s/wall_s")
	b.ReportMetric(float64(events)/float64(seed), "events/run")
	reportPerEvent(b, events, before)
}

// BenchmarkStackChaosRun is one whole run of the full stack under chaos:
// 5 etcd members, 3 API servers, 2 schedulers, 2 controller managers, 10
// kubelets with their kube-proxies and 30 pods (a ReplicaSet of 18 scaled
// to 20 behind a Service, a Deployment of 10 rolled to a new version), and
// the Service's users sending 20 requests a second through node-1, over
// 10 virtual minutes with every check. It
// reports virtual seconds per wall second (the budget: at least 1,000x on
// one core) and the heap the process obtained from the OS (the budget: at
// most 200 MB). Run it with -cpu 1.
//
// It runs twice: with Go's default GOGC, then with scenarios.GCPercent, the
// GOGC kubesim runs worlds with (the budget's setting). heap_sys_MB is the
// heap obtained from the OS so far, which never shrinks: the second figure
// covers both.
func BenchmarkStackChaosRun(b *testing.B) {
	const virtual = 10 * time.Minute
	for _, gogc := range []int{100, scenarios.GCPercent} {
		b.Run(fmt.Sprintf("gogc=%d", gogc), func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(gogc))
			runtime.GC()
			spec := catalogue.StackChaosSpec("stack-chaos-bench", 10, 18, 10, virtual)
			top := *spec.Stack
			top.Traffic = []apptraffic.Config{{Name: "users", Service: scenarios.WorkloadNamespace + "/web", PortName: "http",
				Rate: 20, Start: sim.Time(40 * time.Second)}}
			spec.Stack = &top
			benchSpec(b, spec, 5, virtual)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap_sys_MB")
		})
	}
}

// kernelNsPerEvent measures, in this process, the kernel's own cost per
// event: n timer events of a world whose 1,000 timers each re-arm
// themselves and do nothing else (as sim's BenchmarkKernelEvents "timer"),
// trace hashing included. The run benchmarks divide their ns/event by it,
// so that a figure is a ratio measured under the same load.
func kernelNsPerEvent(n int) float64 {
	w := sim.NewWorld(1)
	h := w.MustAddHost(sim.HostSpec{Name: "h"})
	w.RunFor(0)
	for i := 0; i < 1000; i++ {
		var t *sim.Timer
		step := time.Duration(1000 + i%97)
		t = h.NewTimer("noop", func() { t.Reset(step) })
		t.Reset(time.Duration(i * 37 % 1000))
	}
	start := w.Events()
	began := time.Now()
	for w.Events()-start < uint64(n) {
		w.Step()
	}
	return float64(time.Since(began).Nanoseconds()) / float64(n)
}

// reportPerEvent reports a run benchmark's cost per event: ns/event, its
// ratio to the kernel's ns/event measured right after in the same process
// (x_kernel, see kernelFloor), and the bytes and allocations per event
// since before (the memory statistics read before the runs).
func reportPerEvent(b *testing.B, events uint64, before runtime.MemStats) {
	if events == 0 {
		return
	}
	elapsed := b.Elapsed()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perEvent := float64(elapsed.Nanoseconds()) / float64(events)
	b.ReportMetric(perEvent, "ns/event")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(events), "B/event")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
	b.StopTimer()
	b.ReportMetric(perEvent/kernelFloor(), "x_kernel")
}

// kernelFloor is the kernel's ns/event for x_kernel: the least of three
// measurements, each after a full collection, so that the collection of
// the run's garbage (hundreds of MB after api-chaos) does not land in the
// kernel's 200,000 events and make the ratio swing threefold.
func kernelFloor() float64 {
	best := 0.0
	for range 3 {
		runtime.GC()
		if k := kernelNsPerEvent(200_000); best == 0 || k < best {
			best = k
		}
	}
	return best
}
