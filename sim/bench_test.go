package sim_test

import (
	"container/heap"
	"testing"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// queueDepth is how many events wait in the queue during the kernel
// benchmarks and the floor alike.
const queueDepth = 1024

// floorItem and floorHeap are the baseline: a bare container/heap of
// (time, seq) pairs.
type floorItem struct{ at, seq int64 }
type floorHeap []floorItem

func (h floorHeap) Len() int { return len(h) }
func (h floorHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h floorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *floorHeap) Push(x any)   { *h = append(*h, x.(floorItem)) }
func (h *floorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// BenchmarkHeapFloor is one pop and one push of a bare container/heap per
// op: the floor the kernel's per-event cost is measured against.
func BenchmarkHeapFloor(b *testing.B) { heapFloor(b) }

func heapFloor(b *testing.B) {
	h := &floorHeap{}
	var seq int64
	for i := 0; i < queueDepth; i++ {
		seq++
		heap.Push(h, floorItem{at: int64(i * 37 % 1000), seq: seq})
	}
	b.ReportAllocs()
	for b.Loop() {
		it := heap.Pop(h).(floorItem)
		seq++
		heap.Push(h, floorItem{at: it.at + 1000 + seq%97, seq: seq})
	}
}

// floorNsPerOp times n floor operations, so that each kernel benchmark
// reports its ratio against a baseline measured in the same run.
func floorNsPerOp(n int) float64 {
	h := &floorHeap{}
	var seq int64
	for i := 0; i < queueDepth; i++ {
		seq++
		heap.Push(h, floorItem{at: int64(i * 37 % 1000), seq: seq})
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		it := heap.Pop(h).(floorItem)
		seq++
		heap.Push(h, floorItem{at: it.at + 1000 + seq%97, seq: seq})
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

// BenchmarkKernelEvents measures the kernel's cost per fired event:
// "timer" fires timers whose handler re-arms them and does nothing else;
// "deliver" bounces messages between hosts. Each op is one event, trace
// hashing included. x_floor is ns/event over BenchmarkHeapFloor's ns/op.
func BenchmarkKernelEvents(b *testing.B) {
	b.Run("timer", func(b *testing.B) {
		w := sim.NewWorld(1)
		h := w.MustAddHost(sim.HostSpec{Name: "h"})
		w.RunFor(0)
		for i := 0; i < queueDepth; i++ {
			var t *sim.Timer
			step := time.Duration(1000 + i%97)
			t = h.NewTimer("noop", func() { t.Reset(step) })
			t.Reset(time.Duration(i * 37 % 1000))
		}
		report(b, w)
	})
	b.Run("deliver", func(b *testing.B) {
		w := sim.NewWorld(1)
		var hosts []*sim.Host
		for _, name := range []string{"a", "b"} {
			hosts = append(hosts, w.MustAddHost(sim.HostSpec{Name: name, Boot: func(h *sim.Host) {
				h.Handle("ping", func(m *sim.Message) { h.Send(m.From, "ping", m.Payload) })
			}}))
		}
		w.RunFor(0)
		for i := 0; i < queueDepth; i++ {
			hosts[i%2].Send(hosts[1-i%2].ID(), "ping", nil)
		}
		report(b, w)
	})
}

func report(b *testing.B, w *sim.World) {
	b.ReportAllocs()
	start := w.Events()
	for b.Loop() {
		w.Step()
	}
	events := float64(w.Events() - start)
	if events == 0 {
		b.Fatal("no events fired")
	}
	nsPerEvent := float64(b.Elapsed().Nanoseconds()) / events
	floor := floorNsPerOp(int(events))
	b.ReportMetric(nsPerEvent, "ns/event")
	b.ReportMetric(nsPerEvent/floor, "x_floor")
}
