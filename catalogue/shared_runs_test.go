package catalogue_test

import (
	"fmt"
	"strings"
	"sync"

	"github.com/kubesim/kubesim/scenarios"
)

// sharedRuns runs each ablated world that two tests ask for once per test
// process: TestAblations and TestRejoinWipedMemberCaught both start with
// etcd-replace-member, 3 members, seed 1, rejoin-wiped-member, a run of
// millions of events. A world is a function of its options (the
// determinism tests hold it to that), so the second asker gets the first
// one's result.
var sharedRuns = struct {
	mu   sync.Mutex
	runs map[string]*sharedRun
}{runs: map[string]*sharedRun{}}

type sharedRun struct {
	once sync.Once
	res  scenarios.Result
	err  error
}

// runAblated runs scenario with members, seed and ablations (nothing else
// set), once per test process.
func runAblated(scenario string, members int, seed uint64, ablations ...string) (scenarios.Result, error) {
	key := fmt.Sprintf("%s|%d|%d|%s", scenario, members, seed, strings.Join(ablations, ","))
	sharedRuns.mu.Lock()
	r := sharedRuns.runs[key]
	if r == nil {
		r = &sharedRun{}
		sharedRuns.runs[key] = r
	}
	sharedRuns.mu.Unlock()
	r.once.Do(func() {
		r.res, r.err = scenarios.Run(scenarios.Options{Scenario: scenario, Members: members, Seed: seed, Ablations: ablations})
	})
	return r.res, r.err
}
