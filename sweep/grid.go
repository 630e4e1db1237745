package sweep

import (
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// Grid is a sweep: every combination of profile, member count and seed.
type Grid struct {
	Scenario  string
	Members   []int
	Seeds     int
	SeedBase  uint64 // the first seed; seeds are SeedBase .. SeedBase+Seeds-1
	Profiles  []nemesis.Profile
	Duration  time.Duration // 0: the scenario's
	Ablations []string
}

// Jobs lists the grid's runs in a fixed order: profile, then member count,
// then seed.
func (g Grid) Jobs() []scenarios.Options {
	var out []scenarios.Options
	profiles := g.Profiles
	if len(profiles) == 0 {
		profiles = []nemesis.Profile{{}}
	}
	for _, p := range profiles {
		for _, m := range g.Members {
			for i := 0; i < g.Seeds; i++ {
				o := scenarios.Options{Scenario: g.Scenario, Members: m, Seed: g.SeedBase + uint64(i), Duration: g.Duration, Ablations: g.Ablations}
				if p.Name != "" {
					p := p
					o.Profile = &p
				}
				out = append(out, o)
			}
		}
	}
	return out
}
