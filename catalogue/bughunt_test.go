package catalogue_test

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/internal/bughunt"
	"github.com/kubesim/kubesim/scenarios"
)

var bughuntFlag = flag.Bool("bughunt", false, "TestBugHunt: run the bug-hunt set (internal/bughunt), the matrix that judges mutants in scripts/mutation.sh")

// TestBugHunt runs the bug-hunt set: a fixed matrix of catalogue runs that
// reaches every mechanism of the node packages, and asserts that every check
// of every run passes. It is what judges a mutant in mutation testing
// (scripts/mutation.sh), where each node package runs it from its own
// bughunt_test.go. The catalogue already runs these scenarios in `go test
// ./...`, so here it runs only with -bughunt:
//
//	go test ./catalogue -run TestBugHunt -bughunt -coverpkg=./nodes/... -coverprofile=bughunt.cover
func TestBugHunt(t *testing.T) {
	if !*bughuntFlag {
		t.Skip("the bug-hunt set runs with -bughunt")
	}
	bughunt.RunAll(t)
}

// TestBugHuntCatchesAblations shows that the bug-hunt set can fail: for
// every ablation that a check catches, some run of the matrix on the
// ablation's scenario, with the ablation on, fails that check.
func TestBugHuntCatchesAblations(t *testing.T) {
	if !*bughuntFlag {
		t.Skip("the bug-hunt set runs with -bughunt")
	}
	for _, a := range scenarios.Ablations() {
		if a.Check == "" {
			continue
		}
		t.Run(a.Name, func(t *testing.T) {
			var ran []string
			for _, r := range bughunt.Matrix() {
				if r.Scenario != a.Scenario {
					continue
				}
				opts := r.Options()
				opts.Ablations = []string{a.Name}
				res, err := scenarios.Run(opts)
				require.NoError(t, err)
				for _, c := range res.Failed() {
					if c.Name == a.Check {
						return
					}
				}
				ran = append(ran, r.Name())
			}
			t.Fatalf("%s is caught by %s on %s, but no run of the bug-hunt set catches it (ran %v)", a.Name, a.Check, a.Scenario, ran)
		})
	}
}
