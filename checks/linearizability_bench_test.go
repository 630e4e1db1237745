package checks

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
)

// BenchmarkLinearizability10k checks generated, valid histories of 10,000
// operations by 20 clients (the aim: a 10k-operation history checks in
// about a second), spread over 50 keys and, harder, over 5 keys.
func BenchmarkLinearizability10k(b *testing.B) {
	for _, keys := range []int{50, 5} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			evs := historyEvents(genHistory(rand.New(rand.NewPCG(1, 2)), 10000, keys, 20), time.Microsecond)
			b.ReportAllocs()
			for b.Loop() {
				r := feedEvents(NewLinearizability(LinearizabilityOptions{}), evs)
				if !r.OK {
					b.Fatal(r.String())
				}
			}
		})
	}
}

func TestLinearizabilityGenerated10k(t *testing.T) {
	evs := historyEvents(genHistory(rand.New(rand.NewPCG(7, 8)), 10000, 50, 20), time.Microsecond)
	r := feedEvents(NewLinearizability(LinearizabilityOptions{}), evs)
	require.True(t, r.OK, r.String())
}

// TestLinearizabilityProperty: generated valid histories pass, and
// changing one OK read to a value nobody wrote fails.
func TestLinearizabilityProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		nOps := rapid.IntRange(1, 200).Draw(t, "ops")
		nKeys := rapid.IntRange(1, 4).Draw(t, "keys")
		nClients := rapid.IntRange(1, 6).Draw(t, "clients")
		ops := genHistory(rand.New(rand.NewPCG(seed, 0)), nOps, nKeys, nClients)
		r := feedEvents(NewLinearizability(LinearizabilityOptions{}), historyEvents(ops, time.Microsecond))
		if !r.OK {
			t.Fatalf("valid history rejected: %s", r.String())
		}
		var reads []int
		for i, o := range ops {
			if o.Kind == etcdtrace.OpGet && o.Outcome == etcdtrace.OutcomeOK {
				reads = append(reads, i)
			}
		}
		if len(reads) == 0 {
			return
		}
		i := reads[rapid.IntRange(0, len(reads)-1).Draw(t, "read")]
		ops[i].Found, ops[i].Got = true, "never-written"
		r = feedEvents(NewLinearizability(LinearizabilityOptions{}), historyEvents(ops, time.Microsecond))
		if r.OK {
			t.Fatalf("history with an impossible read accepted: %s", r.String())
		}
	})
}
