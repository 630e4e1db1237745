package simtest

import (
	"testing"

	"github.com/kubesim/kubesim/simtest/guard"
)

// CheckDeterminism reads the source of the packages that patterns name,
// relative to the test's directory ("." for the test's own package,
// "./controller", "./..."; default "."), and fails t with one line per
// construct that could make a seed replay differently: a goroutine, a
// channel, select, sync, the wall clock, global or crypto randomness, or a
// range over a map without a "// determinism: <reason>" comment on the
// line before it. Name the packages whose code runs inside a world (a
// controller, its reconcilers), not the tests: they are not read. The
// rules are kubesim's own (package guard).
func CheckDeterminism(t testing.TB, patterns ...string) {
	t.Helper()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	found, err := guard.Check(".", patterns...)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range found {
		t.Errorf("%s", v)
	}
}
