package bench

import (
	"fmt"
	"testing"
)

// BenchmarkRaftCommit measures committed proposals per second: each op
// proposes one 1 KiB payload on the leader and runs the cluster until the
// leader has applied it (see the package doc for the harness).
func BenchmarkRaftCommit(b *testing.B) {
	data := payloads(64)
	for _, impl := range []string{"kubesim", "etcd"} {
		for _, members := range []int{3, 5} {
			b.Run(fmt.Sprintf("impl=%s/members=%d", impl, members), func(b *testing.B) {
				h, err := newHarness(impl, members, false)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := h.propose(data[i%len(data)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "commits/s")
			})
		}
	}
}
