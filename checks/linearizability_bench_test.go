package checks

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/trace/etcdtrace"
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

// BenchmarkLinearizability10kGroups checks generated, valid histories of
// 10,000 operations by 20 clients on 4 groups of 3 keys, with range reads,
// multi-op txns and revisions (the etcd workload's shape).
func BenchmarkLinearizability10kGroups(b *testing.B) {
	evs := historyEvents(genGroupHistory(rand.New(rand.NewPCG(1, 2)), 10000, 4, 20), time.Microsecond)
	b.ReportAllocs()
	for b.Loop() {
		r := feedEvents(NewLinearizability(LinearizabilityOptions{}), evs)
		if !r.OK {
			b.Fatal(r.String())
		}
	}
}

// TestLinearizabilityGroupProperty: generated valid histories with
// groups, ranges, txns and revisions pass, and each kind of lie fails: a
// read that returns a change after its own revision, a range read's value,
// a read's header revision below the change it returns.
func TestLinearizabilityGroupProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		nOps := rapid.IntRange(1, 200).Draw(t, "ops")
		nGroups := rapid.IntRange(1, 3).Draw(t, "groups")
		nClients := rapid.IntRange(1, 6).Draw(t, "clients")
		ops := genGroupHistory(rand.New(rand.NewPCG(seed, 0)), nOps, nGroups, nClients)
		r := feedEvents(NewLinearizability(LinearizabilityOptions{}), historyEvents(ops, time.Microsecond))
		if !r.OK {
			t.Fatalf("valid history rejected: %s", r.String())
		}
		var lies []func(o *histOp) bool
		lies = append(lies,
			func(o *histOp) bool { // a get reports a change after its own revision
				if o.Kind != etcdtrace.OpGet || !o.Found || o.Outcome != etcdtrace.OutcomeOK {
					return false
				}
				o.ModRev = o.Rev + 1
				return true
			},
			func(o *histOp) bool { // a range read returns a value never written
				if o.Kind != etcdtrace.OpGet || o.End == "" || len(o.KVs) == 0 || o.Outcome != etcdtrace.OutcomeOK {
					return false
				}
				o.KVs = append([]etcdtrace.ReadKV(nil), o.KVs...)
				o.KVs[0].Value = "never-written"
				return true
			},
			func(o *histOp) bool { // a get answered at a revision below its key's last change
				if o.Kind != etcdtrace.OpGet || !o.Found || o.Outcome != etcdtrace.OutcomeOK {
					return false
				}
				o.Rev = o.ModRev - 1
				return true
			})
		lie := rapid.IntRange(0, len(lies)-1).Draw(t, "lie")
		var cand []int
		for i := range ops {
			o := ops[i]
			if lies[lie](&o) {
				cand = append(cand, i)
			}
		}
		if len(cand) == 0 {
			return
		}
		i := cand[rapid.IntRange(0, len(cand)-1).Draw(t, "op")]
		lies[lie](&ops[i])
		r = feedEvents(NewLinearizability(LinearizabilityOptions{}), historyEvents(ops, time.Microsecond))
		if r.OK {
			t.Fatalf("history with a lie (%d) in op %d accepted: %s", lie, i, r.String())
		}
	})
}
