package catalogue_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/scenarios"
)

var updateHashes = flag.Bool("update-trace-hashes", false, "TestCatalogue: rewrite testdata/tracehashes.txt from this build")

const traceHashesFile = "testdata/tracehashes.txt"

// pinnedSeeds are the seeds whose trace hashes are pinned: TestCatalogue
// runs seeds 1 and 2 of every scenario, each at the member count the
// catalogue's rotation gives it (Members[seed mod n]), and compares the
// trace hash and event count with the ones in testdata/tracehashes.txt. A
// change that alters what a run does, or only how its events print, changes
// the fingerprint: a refactoring must leave it alone, and a change of
// behaviour rewrites the file (-update-trace-hashes) and says why in its
// commit. Seed 1 also runs twice in the process, with the same hash:
// nothing leaks from one world into the next.
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

// verify compares the collected fingerprints with the pinned ones (or, with
// -update-trace-hashes, rewrites the file). complete says whether every
// pinned run of the catalogue ran: only then can the file be rewritten, or
// a pinned run that no longer exists be reported. It runs in a cleanup,
// so it asserts and goes on rather than stop before it prints.
func (p *tracePins) verify(t *testing.T, complete bool) {
	if *updateHashes {
		if !assert.True(t, complete, "-update-trace-hashes needs every pinned run: run TestCatalogue whole, with at least %d seeds", pinnedSeeds) {
			return
		}
		lines := make([]string, 0, len(p.got))
		for _, spec := range scenarios.Catalogue() {
			for seed := 1; seed <= pinnedSeeds; seed++ {
				lines = append(lines, p.got[pinKey(spec, seed)])
			}
		}
		assert.NoError(t, os.WriteFile(traceHashesFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		return
	}
	f, err := os.Open(traceHashesFile)
	if !assert.NoError(t, err, "run with -update-trace-hashes to create it") {
		return
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		want[runOf(sc.Text())] = sc.Text()
	}
	assert.NoError(t, sc.Err())
	keys := make([]string, 0, len(p.got))
	for k := range p.got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// assert, not require: the cleanup goes on to report every run.
		assert.Equal(t, want[k], p.got[k], "trace of %s changed; if the behaviour change is meant, rerun go test ./catalogue -run TestCatalogue -update-trace-hashes and say why", k)
	}
	if complete {
		assert.Len(t, want, len(p.got), "%s names runs the catalogue does not have", traceHashesFile)
	}
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
