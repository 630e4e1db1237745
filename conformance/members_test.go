package conformance

import (
	"testing"
	"time"
)

// memberSequences are hand-written membership sequences, each run against
// a fresh oracle.
var memberSequences = []struct {
	name string
	ops  []Op
}{
	{"learner-lifecycle", []Op{
		{Kind: KPut, Key: "a", Value: "1"},
		{Kind: KMemberList},
		{Kind: KMemberAdd, Learner: true},  // m1
		{Kind: KMemberList},                // m1 listed as an unstarted learner
		{Kind: KGet, Key: "a"},             // the learner costs no quorum
		{Kind: KMemberPromote, Member: 1},  // not in sync with the leader
		{Kind: KMemberAdd, Learner: true},  // too many learners
		{Kind: KPut, Key: "b", Value: "2"}, // still writable
		{Kind: KMemberPromote, Member: 0},  // not a learner
		{Kind: KMemberRemove, Member: 0},   // the only voter: not enough started members
		{Kind: KMemberRemove, Member: 7},   // never added
		{Kind: KMemberPromote, Member: 7},  // never added
		{Kind: KMemberRemove, Member: 1},   // a learner goes freely
		{Kind: KMemberList},
		{Kind: KMemberRemove, Member: 1},  // removed already
		{Kind: KMemberPromote, Member: 1}, // removed already
		{Kind: KTxn, Txn: &Txn{Then: []Op{{Kind: KPut, Key: "c", Value: "3"}, {Kind: KGet, Key: "a", End: "z"}}}},
		{Kind: KMemberAdd, Learner: true}, // m2: a learner again
		{Kind: KMemberList},
		{Kind: KDelete, Key: "a"},
		{Kind: KMemberRemove, Member: 2},
		{Kind: KGet, Key: "a", End: "z"},
	}},
	{"voter-on-one-member", []Op{
		{Kind: KPut, Key: "a", Value: "1"},
		{Kind: KMemberAdd, Learner: true}, // m1
		{Kind: KMemberRemove, Member: 1},
		// A voter on a one-member cluster passes the strict checks (the
		// one exception, for restoring a cluster), and takes the quorum
		// with it: it never starts. Later changes are refused.
		{Kind: KMemberAdd},                // m2
		{Kind: KMemberAdd},                // not enough started members
		{Kind: KMemberAdd, Learner: true}, // no quorum once added
	}},
}

func TestMemberSequences(t *testing.T) {
	for i, r := range memberSequences {
		t.Run(r.name, func(t *testing.T) {
			d, err := RunFreshSequence(uint64(2_000_000+i), r.ops, genMembers)
			if err != nil {
				t.Fatal(err)
			}
			if d != nil {
				t.Errorf("%s", d)
			}
		})
	}
}

// TestMemberDifferential runs generated sequences with member calls, each
// against a fresh oracle.
func TestMemberDifferential(t *testing.T) {
	n := freshSeeds()
	start := time.Now()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		d, err := RunFreshSequence(seed, nil, genMembers)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if d != nil {
			t.Errorf("%s", d)
		}
	}
	t.Logf("%d member sequences in %v", n, time.Since(start).Round(time.Millisecond))
}

// freshSeeds is the number of generated sequences of each kind that needs
// a fresh oracle.
func freshSeeds() int {
	switch {
	case *flagFresh > 0:
		return *flagFresh
	case testing.Short():
		return 3
	}
	return 10
}

// TestMemberComparisonCatches shows that the member comparison notices a
// broken simulated side: one that adds a voter when asked for a learner
// (the add passes, as on a one-member cluster, but the list differs), and
// one that removes the member after the one named.
func TestMemberComparisonCatches(t *testing.T) {
	for _, c := range []struct {
		name  string
		tweak func(*Op)
		at    int
	}{
		{"learner-added-as-voter", func(o *Op) {
			if o.Kind == KMemberAdd {
				o.Learner = false
			}
		}, 2},
		{"removes-the-next-member", func(o *Op) {
			if o.Kind == KMemberRemove {
				o.Member++
			}
		}, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			simMemberTweak = c.tweak
			defer func() { simMemberTweak = nil }()
			d, err := RunFreshSequence(4_000_000, memberSequences[0].ops, genMembers)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil || d.Index != c.at {
				t.Fatalf("want a divergence at op %d, got %v", c.at, d)
			}
			t.Logf("caught:\n%s", d)
		})
	}
}
