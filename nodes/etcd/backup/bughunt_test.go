//go:build bughunt

package backup_test

import (
	"testing"

	"github.com/kubesim/kubesim/internal/bughunt"
)

// TestBugHunt runs the bug-hunt set in this package's test binary, so
// that mutation testing (scripts/mutation.sh, gremlins --tags bughunt)
// judges a mutant of this package by the scenarios' checks as well as by
// its unit tests. It is built only with the bughunt build tag.
func TestBugHunt(t *testing.T) { bughunt.RunAll(t) }
