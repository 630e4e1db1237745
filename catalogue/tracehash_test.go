package catalogue_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/scenarios"
)

var updateHashes = flag.Bool("update-trace-hashes", false, "TestCatalogue: rewrite in testdata/tracehashes.txt the pinned lines of the runs that ran (all of them, or one scenario's with -run 'TestCatalogue/NAME'), keeping the others")

const traceHashesFile = "testdata/tracehashes.txt"

// pinnedSeeds are the seeds whose trace hashes are pinned: TestCatalogue
// runs seeds 1 and 2 of every scenario, each at the member count the
// catalogue's rotation gives it (Members[seed mod n]), and compares the
// trace hash and event count with the ones in testdata/tracehashes.txt. A
// change that alters what a run does, or only how its events print, changes
// the fingerprint: a refactoring must leave it alone, and a change of
// behaviour rewrites the lines of the runs it changed
// (-update-trace-hashes) and says why in its commit. Seed 1 also runs
// twice in the process, with the same hash: nothing leaks from one world
// into the next.
const pinnedSeeds = 2

// tracePins collects the pinned runs' fingerprints from TestCatalogue's
// parallel subtests.
type tracePins struct {
	mu      sync.Mutex
	got     map[string]string // runOf(line) -> line
	started int               // subtests that started
}

// start counts a subtest that started.
func (p *tracePins) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started++
}

func newTracePins() *tracePins { return &tracePins{got: map[string]string{}} }

// add records a pinned run's fingerprint.
func (p *tracePins) add(res scenarios.Result) {
	line := fmt.Sprintf("%s members=%d seed=%d hash=%s events=%d", res.Scenario, res.Members, res.Seed, res.TraceHash, res.Events)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got[runOf(line)] = line
}

// verify compares the collected fingerprints with the pinned ones or,
// with -update-trace-hashes, writes them into the file (mergePins). A run
// alone (go test -run 'TestCatalogue/NAME') is compared, or pinned, alone:
// complete says whether every pinned run of the catalogue ran, and only
// then are pinned runs the catalogue no longer has reported (or dropped).
// It runs in a cleanup, so it asserts and goes on rather than stop before
// it prints.
func (p *tracePins) verify(t *testing.T, complete bool) {
	keys := catalogueKeys()
	old, err := readPins(traceHashesFile)
	if err != nil && !(*updateHashes && os.IsNotExist(err)) {
		assert.NoError(t, err, "run with -update-trace-hashes to create it")
		return
	}
	if *updateHashes {
		if t.Failed() {
			t.Logf("-update-trace-hashes: a run failed, so %s is left alone", traceHashesFile)
			return
		}
		assert.NoError(t, writePins(traceHashesFile, mergePins(old, p.got, keys, complete)))
		return
	}
	for _, problem := range comparePins(old, p.got, keys, complete) {
		// assert, not require: the cleanup goes on to report every run.
		assert.Fail(t, problem)
	}
}

// readPins returns the lines of a pins file.
func readPins(path string) ([]string, error) {
	text, err := os.ReadFile(path)
	if err != nil || len(text) == 0 {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(text), "\n"), "\n"), nil
}

// writePins writes the lines of a pins file.
func writePins(path string, lines []string) error {
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// catalogueKeys names every pinned run of the catalogue (pinKey), in
// catalogue order: the order of the pins file.
func catalogueKeys() []string {
	var keys []string
	for _, spec := range scenarios.Catalogue() {
		for seed := 1; seed <= pinnedSeeds; seed++ {
			keys = append(keys, pinKey(spec, seed))
		}
	}
	return keys
}

// mergePins returns the pins file's new lines: for each of keys (every
// pinned run of the catalogue, in order), the line of this run (got) if
// it ran, else the pinned one (old) if there is one. When complete (every
// pinned run ran), that is all; otherwise the old lines of runs that keys
// do not name are kept too, at the end, for a complete run to drop.
func mergePins(old []string, got map[string]string, keys []string, complete bool) []string {
	pinned := map[string]string{}
	for _, l := range old {
		pinned[runOf(l)] = l
	}
	var lines []string
	known := map[string]bool{}
	for _, k := range keys {
		known[k] = true
		if l, ok := got[k]; ok {
			lines = append(lines, l)
		} else if l, ok := pinned[k]; ok {
			lines = append(lines, l)
		}
	}
	if !complete {
		for _, l := range old {
			if !known[runOf(l)] {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// comparePins returns what is wrong with the runs that ran (got) against
// the pinned lines (old): a run whose line changed, a run with no pinned
// line, and, when complete, a pinned run of the catalogue that did not run
// or a pinned line naming a run the catalogue does not have.
func comparePins(old []string, got map[string]string, keys []string, complete bool) []string {
	pinned := map[string]string{}
	for _, l := range old {
		pinned[runOf(l)] = l
	}
	var problems []string
	for _, k := range keys {
		line, ran := got[k]
		want, ok := pinned[k]
		switch {
		case ran && !ok:
			problems = append(problems, fmt.Sprintf("%s has no pinned trace hash: pin it with go test ./catalogue -run 'TestCatalogue/%s' -update-trace-hashes", k, scenarioOf(k)))
		case ran && line != want:
			problems = append(problems, fmt.Sprintf("trace of %s changed: want %q, got %q; if the behaviour change is meant, rerun go test ./catalogue -run 'TestCatalogue/%s' -update-trace-hashes (or the whole TestCatalogue) and say why", k, want, line, scenarioOf(k)))
		case complete && !ran:
			problems = append(problems, fmt.Sprintf("%s did not run", k))
		}
	}
	if complete {
		known := map[string]bool{}
		for _, k := range keys {
			known[k] = true
		}
		for _, l := range old {
			if !known[runOf(l)] {
				problems = append(problems, fmt.Sprintf("%s pins %q, a run the catalogue does not have: rerun TestCatalogue whole with -update-trace-hashes", traceHashesFile, l))
			}
		}
	}
	return problems
}

// pinned reports whether TestCatalogue's run of spec at seed is pinned.
func pinned(spec scenarios.Spec, members, seed int) bool {
	return seed <= pinnedSeeds && spec.Members[seed%len(spec.Members)] == members
}

// pinKey names spec's pinned run at seed, as runOf does.
func pinKey(spec scenarios.Spec, seed int) string {
	return fmt.Sprintf("%s members=%d seed=%d", spec.Name, spec.Members[seed%len(spec.Members)], seed)
}

// runOf is the part of a pinned line that names the run: the scenario,
// member count and seed.
func runOf(line string) string {
	i := strings.Index(line, " hash=")
	if i < 0 {
		return line
	}
	return line[:i]
}

// scenarioOf is the scenario a pinned line or run names.
func scenarioOf(line string) string {
	name, _, _ := strings.Cut(line, " ")
	return name
}
