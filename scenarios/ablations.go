package scenarios

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/nodes/apiserver"
	"github.com/kubesim/kubesim/nodes/controllers/manager"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/kubelet"
)

// Ablation is a switch that removes one mechanism the design depends on, and
// names the check that must catch its absence. Each is the "what if we
// didn't?" of a sentence in the design.
type Ablation struct {
	Name      string
	Mechanism string // what is removed
	Check     string // the check that catches it ("" when measured)
	// Measure, for an ablation that breaks no checked property, names the
	// metrics (comma-separated) that show its cost, side by side with a
	// run without it.
	Measure  string
	Scenario string // the scenario TestAblations runs it on
	apply    func(*AblationSet)
}

// AblationSet is what a run's ablations switch off, layer by layer.
type AblationSet struct {
	Etcd etcd.Ablations
	// API are the API servers' ablations, Reflector the informers'.
	API       apiserver.Ablations
	Reflector ReflectorAblations
	// Kubelet and Controllers are the spokes' ablations.
	Kubelet     kubelet.Ablations
	Controllers manager.Ablations
}

// Ablations lists the registry, in documentation order.
func Ablations() []Ablation {
	return append([]Ablation{
		{Name: "raft-ack-before-fsync", Mechanism: "Raft sends votes and append acks before its log and hard state are fsynced", Check: "raft-safety", Scenario: "etcd-power-loss",
			apply: func(s *AblationSet) { s.Etcd.AckBeforeFsync = true }},
		{Name: "raft-commit-old-term", Mechanism: "the current-term commit rule is gone (a leader commits entries of older terms by counting replicas) and so is the empty entry a new leader appends, which Figure 8 of the Raft paper does not have", Check: "raft-safety", Scenario: "raft-figure-8",
			apply: func(s *AblationSet) { s.Etcd.CommitOldTerm = true }},
		{Name: "etcd-local-reads", Mechanism: "a linearizable read is answered from local state, without ReadIndex", Check: "linearizability", Scenario: "etcd-leader-partition",
			apply: func(s *AblationSet) { s.Etcd.LocalReads = true }},
		{Name: "watch-resume-from-now", Mechanism: "a resumed watch starts at the current revision instead of the one asked for", Check: "watch-guarantees", Scenario: "etcd-leader-crash",
			apply: func(s *AblationSet) { s.Etcd.WatchResumeFromNow = true }},
		{Name: "mvcc-ignore-compare", Mechanism: "a Txn ignores its compares and always takes the success branch", Check: "linearizability", Scenario: "etcd-flaky-network",
			apply: func(s *AblationSet) { s.Etcd.IgnoreCompare = true }},
		{Name: "apply-duplicates", Mechanism: "the apply layer does not de-duplicate a request that arrives twice (a retry, or a duplicate on the network)", Check: "linearizability", Scenario: "etcd-flaky-network",
			apply: func(s *AblationSet) { s.Etcd.NoDedup = true }},
		{Name: "etcd-write-without-quorum", Mechanism: "a member that knows no leader applies a write to its own store and acknowledges it, instead of answering \"no leader\"", Check: "no-writes-without-quorum", Scenario: "etcd-majority-down",
			apply: func(s *AblationSet) { s.Etcd.WriteWithoutQuorum = true }},
	}, append(apiAblations(), stackAblations()...)...)
}

// ResolveAblations turns names into switches; an unknown name is an error
// that lists the known ones.
func ResolveAblations(names []string) (AblationSet, error) {
	var set AblationSet
	all := Ablations()
	for _, n := range names {
		found := false
		for _, a := range all {
			if a.Name == n {
				a.apply(&set)
				found = true
			}
		}
		if !found {
			var known []string
			for _, a := range all {
				known = append(known, a.Name)
			}
			return set, fmt.Errorf("unknown ablation %q: run `kubesim ablations` to list them (%s)", n, strings.Join(known, ", "))
		}
	}
	return set, nil
}
