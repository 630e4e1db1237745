package guard_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/simtest/guard"
)

// TestCheck: the guard reads packages from disk through go list, finds
// the goroutine and the unexplained map range planted in one, and accepts
// a clean one.
func TestCheck(t *testing.T) {
	v, err := guard.Check(".", "./testdata/planted")
	require.NoError(t, err)
	require.Len(t, v, 2, "%v", v)
	require.Contains(t, v[0].String(), "planted.go:11:2: go statement")
	require.Contains(t, v[1].String(), "planted.go:17:2: range over a map")

	v, err = guard.Check(".", "./testdata/clean")
	require.NoError(t, err)
	require.Empty(t, v)

	both, err := guard.Check(".", "./testdata/clean", "./testdata/planted")
	require.NoError(t, err)
	require.Equal(t, plantedFindings(t), both, "of two packages, only the planted one is reported")
}

// plantedFindings are the guard's findings in the planted package alone.
func plantedFindings(t *testing.T) []guard.Violation {
	v, err := guard.Check(".", "./testdata/planted")
	require.NoError(t, err)
	return v
}

// TestCheckErrors: the guard says when it could not read what it was
// asked for, rather than passing.
func TestCheckErrors(t *testing.T) {
	_, err := guard.Check(".")
	require.ErrorContains(t, err, "no packages named")
	_, err = guard.Check(".", "./testdata/nonexistent")
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "determinism guard: "), err.Error())
}
