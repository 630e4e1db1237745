package scenarios

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// Key identifies the run across shards and restarts: its scenario, member
// count, seed, fault profile and ablations.
func (o Options) Key() string {
	return runKey(o.Scenario, o.Members, o.Seed, o.Profile, o.Ablations)
}

// Key identifies the run r is the result of, as Options.Key does.
func (r *Result) Key() string {
	return runKey(r.Scenario, r.Members, r.Seed, r.Profile, r.Ablations)
}

// runKey renders a run's identity: "scenario|members|seed|profile|ablations".
func runKey(scenario string, members int, seed uint64, profile *nemesis.Profile, ablations []string) string {
	prof := ""
	if profile != nil {
		prof = profile.String()
	}
	return fmt.Sprintf("%s|%d|%d|%s|%s", scenario, members, seed, prof, strings.Join(ablations, ","))
}
