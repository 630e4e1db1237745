package bench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
)

// TestHarnessCommits checks that both harnesses really replicate: after k
// proposals (enough to cross several compactions), every node applied exactly
// the k payloads, in order, with identical data.
func TestHarnessCommits(t *testing.T) {
	const k = 3*compactEvery + 17
	for _, impl := range []string{"kubesim", "etcd"} {
		for _, members := range []int{3, 5} {
			t.Run(fmt.Sprintf("impl=%s/members=%d", impl, members), func(t *testing.T) {
				h, err := newHarness(impl, members, true)
				if err != nil {
					t.Fatal(err)
				}
				base := payloads(4)
				for i := range k {
					p := append([]byte(nil), base[i%len(base)]...)
					binary.LittleEndian.PutUint64(p, uint64(i))
					if err := h.propose(p); err != nil {
						t.Fatalf("proposal %d: %v", i, err)
					}
				}
				h.flush()
				for id, got := range h.appliedData() {
					if len(got) != k {
						t.Fatalf("node %d applied %d entries, want %d", id+1, len(got), k)
					}
					for i, d := range got {
						want := append([]byte(nil), base[i%len(base)]...)
						binary.LittleEndian.PutUint64(want, uint64(i))
						if !bytes.Equal(d, want) {
							t.Fatalf("node %d entry %d: data differs from proposal", id+1, i)
						}
					}
				}
			})
		}
	}
}
