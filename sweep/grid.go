package sweep

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// Grid is a sweep: every combination of profile, member count and seed.
// It is never materialised: its runs are computed from their position
// (At), so that a grid of billions of runs costs no more memory than one
// of ten.
type Grid struct {
	Scenario  string
	Members   []int
	Seeds     int
	SeedBase  uint64 // the first seed; seeds are SeedBase .. SeedBase+Seeds-1
	Profiles  []nemesis.Profile
	Duration  time.Duration // 0: the scenario's
	Ablations []string
	// Buggify switches BUGGIFY on in every run (Options.Buggify).
	Buggify bool
}

// MaxRuns is the largest grid a sweep takes: a trillion runs, which at a
// thousand runs a second would take 30 years. A larger grid is surely a
// mistake in its flags (Validate).
const MaxRuns = 1_000_000_000_000

// profiles are the grid's profiles, or one empty profile (the scenario's
// own faults) when it names none.
func (g Grid) profiles() []nemesis.Profile {
	if len(g.Profiles) == 0 {
		return []nemesis.Profile{{}}
	}
	return g.Profiles
}

// Size returns the number of runs, profiles × member counts × seeds, and
// false if that does not fit in 64 bits (or Seeds is negative).
func (g Grid) Size() (uint64, bool) {
	if g.Seeds < 0 {
		return 0, false
	}
	hi, n := bits.Mul64(uint64(len(g.profiles())), uint64(len(g.Members)))
	if hi != 0 {
		return 0, false
	}
	hi, n = bits.Mul64(n, uint64(g.Seeds))
	return n, hi == 0
}

// Len is the number of runs of a grid that Validate accepts.
func (g Grid) Len() int {
	n, ok := g.Size()
	if !ok || n > MaxRuns {
		panic(fmt.Sprintf("sweep: Len of a grid that Validate refuses (%d runs, fits %v)", n, ok))
	}
	return int(n)
}

// At returns the run at position i, 0 <= i < Len: the runs are ordered by
// profile, then member count, then seed.
func (g Grid) At(i int) scenarios.Options {
	perProfile := len(g.Members) * g.Seeds
	p, rest := i/perProfile, i%perProfile
	m, s := rest/g.Seeds, rest%g.Seeds
	o := scenarios.Options{Scenario: g.Scenario, Members: g.Members[m], Seed: g.SeedBase + uint64(s), Duration: g.Duration, Ablations: g.Ablations, Buggify: g.Buggify}
	if prof := g.profiles()[p]; prof.Name != "" {
		o.Profile = &prof
	}
	return o
}

// All yields the grid's runs in order, with their positions, computing
// each as it goes.
func (g Grid) All() iter.Seq2[int, scenarios.Options] {
	return func(yield func(int, scenarios.Options) bool) {
		for i := range g.Len() {
			if !yield(i, g.At(i)) {
				return
			}
		}
	}
}

// Index returns the position of the run r is the result of, if it is a
// run of the grid: the same key (scenario, members, seed, duration,
// profile, schedule, ablations and build) as the run at that position.
func (g Grid) Index(r *scenarios.Result) (int, bool) {
	if r.Seed < g.SeedBase || r.Seed-g.SeedBase >= uint64(g.Seeds) {
		return 0, false
	}
	m := slices.Index(g.Members, r.Members)
	if m < 0 {
		return 0, false
	}
	prof := ""
	if r.Profile != nil {
		prof = r.Profile.String()
	}
	for p, gp := range g.profiles() {
		if gp.Name != "" && gp.String() != prof || gp.Name == "" && prof != "" {
			continue
		}
		i := (p*len(g.Members)+m)*g.Seeds + int(r.Seed-g.SeedBase)
		if g.At(i).Key() == r.Key() {
			return i, true
		}
	}
	return 0, false
}

// Validate checks the grid before anything runs, and names the input to
// fix: an unknown scenario, no member count or one outside 1..7, a member
// count, profile or ablation listed twice (every run would be run twice),
// fewer than one seed, seeds that would wrap past 2^64, a negative
// duration, or a grid larger than MaxRuns.
func (g Grid) Validate() error {
	if _, err := scenarios.Lookup(g.Scenario); err != nil {
		return err
	}
	if len(g.Members) == 0 {
		return fmt.Errorf("--members: no member count given: list at least one, e.g. 3,4,5")
	}
	for i, m := range g.Members {
		if m < 1 || m > scenarios.MaxMembers {
			return fmt.Errorf("--members %s: member count %d is outside 1..%d", joinInts(g.Members), m, scenarios.MaxMembers)
		}
		if slices.Index(g.Members, m) < i {
			return fmt.Errorf("--members %s: member count %d is listed twice, so each of its runs would run twice: list each count once", joinInts(g.Members), m)
		}
	}
	if g.Seeds < 1 {
		return fmt.Errorf("--seeds must be at least 1, got %d", g.Seeds)
	}
	if last := uint64(g.Seeds - 1); last > math.MaxUint64-g.SeedBase {
		return fmt.Errorf("--seed-base %d with --seeds %d wraps past 2^64 (the largest seed is %d): use --seed-base at most %d, or fewer --seeds",
			g.SeedBase, g.Seeds, uint64(math.MaxUint64), uint64(math.MaxUint64)-last)
	}
	seen := map[string]bool{}
	for _, p := range g.Profiles {
		if seen[p.String()] {
			return fmt.Errorf("--faults %s is given twice, so each of its runs would run twice: give each profile once", p.String())
		}
		seen[p.String()] = true
	}
	if _, err := scenarios.ResolveAblations(g.Ablations); err != nil {
		return err
	}
	for i, a := range g.Ablations {
		if slices.Index(g.Ablations, a) < i {
			return fmt.Errorf("--ablate %s is given twice: give each ablation once", a)
		}
	}
	if g.Duration < 0 {
		return fmt.Errorf("--duration must be positive, got %v", g.Duration)
	}
	if n, ok := g.Size(); !ok || n > MaxRuns {
		size := fmt.Sprintf("%d", n)
		if !ok {
			size = "more than 2^64"
		}
		return fmt.Errorf("the grid has %s runs (%d profiles × %d member counts × %d seeds), more than the %d a sweep takes (at a thousand runs a second, 30 years): use fewer --seeds",
			size, len(g.profiles()), len(g.Members), g.Seeds, uint64(MaxRuns))
	}
	return nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
