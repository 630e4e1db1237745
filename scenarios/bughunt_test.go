package scenarios_test

import (
	"flag"
	"testing"

	"github.com/kubesim/kubesim/internal/bughunt"
)

var bughuntFlag = flag.Bool("bughunt", false, "TestBugHunt: run the bug-hunt set (internal/bughunt), the matrix that judges mutants in scripts/mutation.sh")

// TestBugHunt runs the bug-hunt set: a fixed matrix of catalogue runs that
// reaches every mechanism of the node packages, and asserts that every check
// of every run passes. It is what judges a mutant in mutation testing
// (scripts/mutation.sh), where each node package runs it from its own
// bughunt_test.go. The catalogue already runs these scenarios in `go test
// ./...`, so here it runs only with -bughunt:
//
//	go test ./scenarios -run TestBugHunt -bughunt -coverpkg=./nodes/... -coverprofile=bughunt.cover
func TestBugHunt(t *testing.T) {
	if !*bughuntFlag {
		t.Skip("the bug-hunt set runs with -bughunt")
	}
	bughunt.RunAll(t)
}
