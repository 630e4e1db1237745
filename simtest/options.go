package simtest

import (
	"time"

	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Option sets how Run runs a spec. The flags (see the package
// documentation) override the options: -seed and -seeds the seeds,
// -members the member counts, and -ablate adds to Ablate's.
type Option func(*config)

// config is what the options set.
type config struct {
	members       []int
	seeds         int
	ablations     []string
	duration      time.Duration
	schedule      sim.Schedule
	profile       *nemesis.Profile
	sameSeedTwice bool
	artifactDir   string
	replayFlags   []string
}

// defaultSeeds is how many seeds Run runs when neither Seeds nor -seeds
// says: enough to meet a fault or two, few enough for a unit test.
const defaultSeeds = 5

func newConfig(opts []Option) config {
	c := config{seeds: defaultSeeds, sameSeedTwice: true}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Seeds runs seeds 1 to n (default 5).
func Seeds(n int) Option { return func(c *config) { c.seeds = n } }

// Members runs each seed with each of these etcd member counts (default:
// the spec's Members, or 3).
func Members(counts ...int) Option {
	return func(c *config) { c.members = append([]int(nil), counts...) }
}

// Ablate turns on ablations from kubesim's registry in every run (see
// `kubesim ablations`): to prove that a check catches the bug an ablation
// plants.
func Ablate(names ...string) Option {
	return func(c *config) { c.ablations = append(c.ablations, names...) }
}

// Duration runs each world for d of virtual time instead of the spec's
// Duration (which includes its fault-free Settle window).
func Duration(d time.Duration) Option { return func(c *config) { c.duration = d } }

// Schedule runs this fault schedule (sim.ScheduleBuilder writes one)
// instead of the faults the spec draws.
func Schedule(s sim.Schedule) Option { return func(c *config) { c.schedule = s } }

// Profile draws the faults from a nemesis profile instead of the spec's.
func Profile(p nemesis.Profile) Option { return func(c *config) { c.profile = &p } }

// SkipSameSeedTwice turns off the same-seed-twice check, which runs the
// first seed of each member count a second time and fails if the trace
// differs: it doubles the cost of that seed. Keep the check on somewhere
// (a determinism leak in a controller shows first there).
func SkipSameSeedTwice() Option { return func(c *config) { c.sameSeedTwice = false } }

// ArtifactDir writes a failing run's artifacts under dir (default:
// scenarios.ArtifactDir, which $KUBESIM_ARTIFACTS sets).
func ArtifactDir(dir string) Option { return func(c *config) { c.artifactDir = dir } }

// ReplayFlags adds flags of the test's own to the replay command a failure
// prints, after simtest's: a test that picks a variant by a flag of its own
// (say -broken) passes it here when it runs that variant, so that the
// printed command replays the same world.
func ReplayFlags(flags ...string) Option {
	return func(c *config) { c.replayFlags = append(c.replayFlags, flags...) }
}
