package ablation

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// withTestSwitches declares n more user-facing switches after the real
// ones, "test-switch-<position>", and takes them out when t ends: the
// registry past 64 entries, which no fixed-size Set could hold.
func withTestSwitches(t *testing.T, n int) []Switch {
	saved := registry
	registry = slices.Clip(registry)
	t.Cleanup(func() { registry = saved })
	xs := make([]Switch, n)
	for i := range xs {
		xs[i] = declare(Ablation{Name: fmt.Sprintf("test-switch-%d", len(registry)), Mechanism: "test", Check: "test", Scenario: "test"})
	}
	return xs
}

// TestHundredSwitches: a Set with 100 switches on, spread to position 297,
// has each of them and none of the others.
func TestHundredSwitches(t *testing.T) {
	var on []Switch
	for i := range 100 {
		on = append(on, Switch(3*i))
	}
	s := Of(on...)
	for x := Switch(0); x < 400; x++ {
		assert.Equal(t, x%3 == 0 && x < 300, s.Has(x), "switch %d", x)
	}
	rev := slices.Clone(on)
	slices.Reverse(rev)
	assert.Equal(t, s, Of(rev...), "order does not matter")
}

// TestSetBeyond64: Of, When, Has, String and Parse with switches past
// position 64 of the registry.
func TestSetBeyond64(t *testing.T) {
	xs := withTestSwitches(t, 100)
	require.Greater(t, xs[len(xs)-1], Switch(128))
	last, first := xs[len(xs)-1], xs[0]
	for _, tc := range []struct {
		name  string
		names []string // Parse's input
		on    []Switch // Of's
		str   string   // the Set's String
	}{
		{"none", nil, nil, ""},
		{"a real one", []string{"poll-not-watch"}, []Switch{PollNotWatch}, "poll-not-watch"},
		{"the first past the real ones", []string{first.String()}, []Switch{first}, first.String()},
		{"the last", []string{last.String()}, []Switch{last}, last.String()},
		{"beyond 64 and real, in registry order", []string{last.String(), "raft-commit-old-term", xs[10].String()},
			[]Switch{SkipEmptyEntry, CommitOldTerm, xs[10], last}, "raft-skip-empty-entry,raft-commit-old-term," + xs[10].String() + "," + last.String()},
		{"twice", []string{last.String(), last.String()}, []Switch{last}, last.String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.names)
			require.NoError(t, err)
			assert.Equal(t, Of(tc.on...), s)
			assert.True(t, Of(tc.on...) == s, "comparable with ==")
			assert.Equal(t, s, When(true, tc.on...))
			assert.Equal(t, Set{}, When(false, tc.on...))
			assert.Equal(t, tc.str, s.String())
			for _, a := range registry {
				assert.Equal(t, slices.Contains(tc.on, a.Switch), s.Has(a.Switch), a.Name)
			}
		})
	}
	for _, x := range xs {
		s, err := Parse([]string{x.String()})
		require.NoError(t, err)
		assert.Equal(t, Of(x), s, "Parse(x.String()) is Of(x)")
		assert.Equal(t, x.String(), s.String())
		assert.Equal(t, fmt.Sprintf("test-switch-%d", x), x.String())
	}
	_, err := Parse([]string{"test-switch-999"})
	require.Error(t, err)
	assert.True(t, strings.HasSuffix(err.Error(), ", "+last.String()+")"), "the known names end with the last: %v", err)
}

// TestSetValue: a Set is a value; Of gives equal Sets (== and as map
// keys) for the same switches on, whatever their order and repeats, and
// Has answers exactly the switches given.
func TestSetValue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(rapid.Uint16Range(0, 500)).Draw(t, "xs")
		on := make([]Switch, len(xs))
		for i, x := range xs {
			on[i] = Switch(x)
		}
		s := Of(on...)
		perm := rapid.Permutation(append(on, on...)).Draw(t, "perm")
		if s != Of(perm...) || map[Set]bool{s: true}[Of(perm...)] != true {
			t.Fatalf("Of(%v) != Of(%v)", on, perm)
		}
		if (s == Set{}) != (len(on) == 0) {
			t.Fatalf("Of(%v) == Set{}: %v", on, s == Set{})
		}
		for x := Switch(0); x <= 520; x++ {
			if s.Has(x) != slices.Contains(on, x) {
				t.Fatalf("Of(%v).Has(%d) = %v", on, x, s.Has(x))
			}
		}
	})
}
