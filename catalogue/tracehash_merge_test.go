package catalogue_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPinOneScenario: pinning one scenario's runs (go test -run
// 'TestCatalogue/NAME' -update-trace-hashes) rewrites its lines only, adds
// a new scenario's lines in catalogue order, and keeps every other line,
// even one the catalogue no longer names; a lone run reports neither the
// other runs as missing nor its new runs as changed; a complete run
// reports both, and drops stale lines when it pins.
func TestPinOneScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tracehashes.txt")
	require.NoError(t, writePins(path, []string{
		"a members=3 seed=1 hash=01 events=10",
		"a members=4 seed=2 hash=02 events=20",
		"c members=3 seed=1 hash=05 events=50",
		"c members=4 seed=2 hash=06 events=60",
		"gone members=3 seed=1 hash=07 events=70",
	}))
	keys := []string{"a members=3 seed=1", "a members=4 seed=2", "b members=3 seed=1", "b members=4 seed=2", "c members=3 seed=1", "c members=4 seed=2"}
	old, err := readPins(path)
	require.NoError(t, err)

	// b is new, and run alone: not pinned, but not "changed" either, and
	// nothing else is missing.
	newB := map[string]string{
		"b members=3 seed=1": "b members=3 seed=1 hash=03 events=30",
		"b members=4 seed=2": "b members=4 seed=2 hash=04 events=40",
	}
	problems := comparePins(old, newB, keys, false)
	require.Len(t, problems, 2)
	for _, p := range problems {
		require.Contains(t, p, "has no pinned trace hash: pin it with go test ./catalogue -run 'TestCatalogue/b' -update-trace-hashes")
	}

	// Pin b alone: its lines go in catalogue order, the others stay.
	require.NoError(t, writePins(path, mergePins(old, newB, keys, false)))
	old, err = readPins(path)
	require.NoError(t, err)
	require.Equal(t, []string{
		"a members=3 seed=1 hash=01 events=10",
		"a members=4 seed=2 hash=02 events=20",
		"b members=3 seed=1 hash=03 events=30",
		"b members=4 seed=2 hash=04 events=40",
		"c members=3 seed=1 hash=05 events=50",
		"c members=4 seed=2 hash=06 events=60",
		"gone members=3 seed=1 hash=07 events=70",
	}, old)
	require.Empty(t, comparePins(old, newB, keys, false), "b alone, now pinned")

	// a changed: reported alone; re-pinning a rewrites its lines only.
	changedA := map[string]string{"a members=3 seed=1": "a members=3 seed=1 hash=ff events=11"}
	problems = comparePins(old, changedA, keys, false)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0], "trace of a members=3 seed=1 changed")
	merged := mergePins(old, changedA, keys, false)
	require.Equal(t, "a members=3 seed=1 hash=ff events=11", merged[0])
	require.Equal(t, old[1:], merged[1:])

	// A complete run reports the runs that did not run and the stale line,
	// and drops the stale line when it pins.
	all := map[string]string{}
	for _, l := range old[:6] {
		all[runOf(l)] = l
	}
	require.Empty(t, comparePins(old[:6], all, keys, true))
	delete(all, "c members=4 seed=2")
	problems = comparePins(old, all, keys, true)
	require.Len(t, problems, 2)
	require.Contains(t, problems[0], "c members=4 seed=2 did not run")
	require.Contains(t, problems[1], "a run the catalogue does not have")
	all["c members=4 seed=2"] = old[5]
	require.Equal(t, old[:6], mergePins(old, all, keys, true))
}
