// Package bughunt is the bug-hunt set: a small, fixed matrix of catalogue
// scenario runs chosen to reach every mechanism of the node packages, fast
// enough to judge each mutant of a mutation-testing run
// (scripts/mutation.sh, docs/mutation.md).
//
// A run of the matrix passes only when every check of every run passes, so
// a mutant that breaks a checked property fails it. TestBugHunt in
// package catalogue runs it with -bughunt; each node package runs it too,
// from a bughunt_test.go built only with the bughunt build tag, so that a
// mutant of that package is judged by its unit tests and the bug-hunt set
// in one test binary (gremlins runs `go test PKG` per mutant).
package bughunt

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	// The set is the catalogue scenarios' Spec.BugHunt runs.
	_ "github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/scenarios"
)

// Run is one entry of the matrix: a catalogue scenario at a member count
// and a seed, and the mechanisms it is there to reach (a
// scenarios.BugHuntRun of the scenario's spec).
type Run struct {
	Scenario string
	Members  int
	Seed     uint64
	// Buggify runs it with BUGGIFY on.
	Buggify bool
	// Reaches names the mechanisms this run is in the matrix for.
	Reaches string
}

// Name is the run's subtest name.
func (r Run) Name() string {
	name := fmt.Sprintf("%s/members=%d/seed=%d", r.Scenario, r.Members, r.Seed)
	if r.Buggify {
		name += "/buggify"
	}
	return name
}

// Options are the scenarios.Options that run it.
func (r Run) Options() scenarios.Options {
	return scenarios.Options{Scenario: r.Scenario, Members: r.Members, Seed: r.Seed, Buggify: r.Buggify}
}

// Matrix returns the bug-hunt set, in the order it runs (with -failfast,
// a mutant stops at its first failing run): every catalogue scenario's
// Spec.BugHunt runs, in rank order.
//
// The set is one run of every catalogue scenario that carries a check of
// its own (the scenario that proves the check's ablation), so that each
// check judges the code it is about, plus the runs of the chaos scenarios
// that reach the most code no fixed schedule reaches: a greedy cover of
// the statements of nodes/... reached by 114 candidate runs (every
// scenario at 3 and 5 members, 2 seeds each, 5 for the chaos ones) picked
// the chaos seeds and the member counts. Members vary so that quorums of
// 2, 3 and 3-of-4 all run. Every ablation that a check catches is caught
// by a run of the set on its scenario (TestBugHuntCatchesAblations), so
// each check can fail here. The etcd runs rank first: they are the
// fastest and judge the most code under the API layer.
func Matrix() []Run {
	type ranked struct {
		rank int
		run  Run
	}
	var all []ranked
	for _, spec := range scenarios.Catalogue() {
		for _, b := range spec.BugHunt {
			all = append(all, ranked{b.Rank, Run{Scenario: spec.Name, Members: b.Members, Seed: b.Seed, Buggify: b.Buggify, Reaches: b.Reaches}})
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	runs := make([]Run, len(all))
	for i, r := range all {
		runs[i] = r.run
	}
	return runs
}

// Ranks returns the ranks of the catalogue's bug-hunt runs, in catalogue
// order, for the test that each rank is given once.
func Ranks() []int {
	var ranks []int
	for _, spec := range scenarios.Catalogue() {
		for _, b := range spec.BugHunt {
			ranks = append(ranks, b.Rank)
		}
	}
	return ranks
}

// RunAll runs every entry of the matrix as a subtest, in order, and fails
// a subtest whose run fails any check, printing its failed checks and the
// command that replays it.
func RunAll(t *testing.T) {
	t.Helper()
	for _, r := range Matrix() {
		t.Run(r.Name(), func(t *testing.T) {
			res, err := scenarios.Run(r.Options())
			if err != nil {
				t.Fatalf("%s: %v", r.Name(), err)
			}
			if !res.OK {
				for _, c := range res.Failed() {
					t.Errorf("%s", c.String())
				}
				t.Fatalf("replay with: %s", scenarios.ReplayCommand(res))
			}
		})
	}
}
