package nemesis

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Profile is a parameterised fault generator for sweeps: it draws a fault
// schedule from the seed. Its parameters are printed, and recorded in every
// result, so that a report can say what a point on a plot means.
type Profile struct {
	Name   string            `json:"name"`
	Params map[string]string `json:"params"`
}

// String prints the profile as the --faults flag takes it, parameters
// sorted: "crash-restart:mttf=1m0s,mttr=20s".
func (p Profile) String() string {
	if len(p.Params) == 0 {
		return p.Name
	}
	var parts []string
	for _, k := range sim.SortedKeys(p.Params) {
		parts = append(parts, k+"="+p.Params[k])
	}
	return p.Name + ":" + strings.Join(parts, ",")
}

// profileSpec describes a profile kind: its parameters with defaults, and
// its generator.
type profileSpec struct {
	name     string
	doc      string
	defaults map[string]string
	// switches are parameters that are off unless given (key=true), so
	// that a profile without them prints, and keys its results, as before
	// they existed.
	switches []string
	generate func(p params, c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule
}

// params gives typed access to a profile's parameters (validated first).
type params map[string]string

func (p params) dur(k string) time.Duration { d, _ := time.ParseDuration(p[k]); return d }
func (p params) num(k string) float64       { f, _ := strconv.ParseFloat(p[k], 64); return f }

var profileSpecs = []profileSpec{
	{
		name:     "crash-restart",
		doc:      "each member independently crashes after an exponential up time (mean mttf) and restarts after an exponential down time (mean mttr); members start in the stationary distribution",
		defaults: map[string]string{"mttf": "60s", "mttr": "20s"},
		generate: genCrashRestart,
	},
	{
		name:     "partitions",
		doc:      "partitions arrive as a Poisson process (rate per minute), each lasting duration; kind is minority, majority, leader or random",
		defaults: map[string]string{"rate": "2", "duration": "10s", "kind": "random"},
		generate: genPartitions,
	},
	{
		name:     "flaky-network",
		doc:      "every link loses, duplicates and reorders messages, with extra delay, for the whole run",
		defaults: map[string]string{"loss": "0.05", "dup": "0.02", "reorder": "0.05", "delay": "5ms"},
		generate: genFlaky,
	},
	{
		name:     "moments",
		doc:      "no fault at a random time: the fault of a named moment's example (see docs/faults.md, Triggered faults) aimed at it, for the first times events that mark it, while it can end before the settle window",
		defaults: map[string]string{"moment": "leader-elected", "times": "3"},
		generate: genMoments,
	},
	{
		name: "mixed",
		doc:  "crash-restart, partitions and a flaky network at once, each at its own parameters; with swarm=true, each of the three is on with probability 1/2 (at least one) per seed, and crashes or partitions alone come twice as often",
		defaults: map[string]string{"mttf": "120s", "mttr": "20s", "rate": "1", "duration": "10s", "kind": "random",
			"loss": "0.02", "dup": "0.01", "reorder": "0.02", "delay": "2ms"},
		switches: []string{"swarm"},
		generate: genMixed,
	},
}

// ProfileNames lists the fault profiles with a line of documentation each.
func ProfileNames() []string {
	var out []string
	for _, s := range profileSpecs {
		out = append(out, fmt.Sprintf("%-14s %s (defaults: %s)", s.name, s.doc, Profile{Params: s.defaults}.String()[1:]))
	}
	return out
}

// ParseProfile parses "NAME[:key=value,...]", filling unset parameters with
// the profile's defaults. Errors name the bad part and how to fix it.
func ParseProfile(text string) (Profile, error) {
	name, rest, _ := strings.Cut(text, ":")
	var spec *profileSpec
	var names []string
	for i := range profileSpecs {
		names = append(names, profileSpecs[i].name)
		if profileSpecs[i].name == name {
			spec = &profileSpecs[i]
		}
	}
	if spec == nil {
		return Profile{}, fmt.Errorf("unknown fault profile %q (want one of %s)", name, strings.Join(names, ", "))
	}
	p := Profile{Name: name, Params: map[string]string{}}
	for _, k := range sim.SortedKeys(spec.defaults) {
		p.Params[k] = spec.defaults[k]
	}
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if _, known := spec.defaults[k]; !ok || !(known || slices.Contains(spec.switches, k)) {
				keys := append(sim.SortedKeys(spec.defaults), spec.switches...)
				return Profile{}, fmt.Errorf("fault profile %s: bad parameter %q (want key=value with key one of %s)", name, kv, strings.Join(keys, ", "))
			}
			p.Params[k] = v
		}
	}
	if err := normalizeParams(p); err != nil {
		return Profile{}, fmt.Errorf("fault profile %s: %v", name, err)
	}
	return p, nil
}

// The ranges of the profiles' parameters: finite, and bounded where a
// larger (or smaller) value is surely a mistake. A member that fails every
// second, or a fault a second, already makes a cluster that never settles;
// a month is longer than any run; a 10 s delay is a link that has stopped
// (sim's bound on a schedule's delay and fsync). Each duration's range is
// [min, max] with an example.
var durationBounds = map[string][3]time.Duration{
	"mttf":     {time.Second, 30 * 24 * time.Hour, time.Minute},
	"mttr":     {time.Second, 30 * 24 * time.Hour, 20 * time.Second},
	"duration": {100 * time.Millisecond, 30 * 24 * time.Hour, 10 * time.Second},
	"delay":    {0, 10 * time.Second, 5 * time.Millisecond},
}

// maxRatePerMinute bounds the partitions' arrival rate: one a second.
const maxRatePerMinute = 60

// normalizeParams validates p's parameters and rewrites each in canonical
// form (durations as Go prints them, numbers in shortest form), so that one
// profile always prints, and keys results, the same way.
func normalizeParams(p Profile) error {
	for _, k := range sim.SortedKeys(p.Params) {
		v := p.Params[k]
		switch k {
		case "mttf", "mttr", "duration", "delay":
			b := durationBounds[k]
			d, err := time.ParseDuration(v)
			if err != nil || d < b[0] || d > b[1] {
				return fmt.Errorf("%s=%q is not a duration from %v to %v (e.g. %s)", k, v, b[0], b[1], b[2])
			}
			p.Params[k] = d.String()
		case "rate":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0 && f <= maxRatePerMinute) {
				return fmt.Errorf("rate=%q is not a number of faults per minute from 0 to %v", v, maxRatePerMinute)
			}
			p.Params[k] = strconv.FormatFloat(f, 'g', -1, 64)
		case "loss", "dup", "reorder":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0 && f <= 1) {
				return fmt.Errorf("%s=%q is not a probability in [0,1]", k, v)
			}
			p.Params[k] = strconv.FormatFloat(f, 'g', -1, 64)
		case "moment":
			if _, err := LookupMoment(v); err != nil {
				return err
			}
		case "times":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxMomentTimes {
				return fmt.Errorf("times=%q is not a whole number from 1 to %d", v, maxMomentTimes)
			}
			p.Params[k] = strconv.Itoa(n)
		case "swarm":
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("swarm=%q: want true or false", v)
			}
			if !on {
				delete(p.Params, k)
			} else {
				p.Params[k] = "true"
			}
		case "kind":
			switch v {
			case "minority", "majority", "leader", "random":
			default:
				return fmt.Errorf("kind=%q: want minority, majority, leader or random", v)
			}
		}
	}
	return nil
}

// Schedule draws the profile's fault schedule for cluster c, ending by end.
func (p Profile) Schedule(c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	for _, s := range profileSpecs {
		if s.name == p.Name {
			sched := s.generate(params(p.Params), c, rng, end)
			sort.SliceStable(sched, func(i, j int) bool { return sched[i].At < sched[j].At })
			return sched
		}
	}
	return nil
}

// StationaryUp is the long-run probability that a crash-restart member is
// up: MTTF / (MTTF + MTTR).
func StationaryUp(mttf, mttr time.Duration) float64 {
	return float64(mttf) / float64(mttf+mttr)
}

func expDur(rng *sim.Stream, mean time.Duration) time.Duration {
	d := time.Duration(rng.ExpFloat64() * float64(mean))
	return max(d.Truncate(time.Millisecond), time.Millisecond)
}

// genCrashRestart gives every member an alternating renewal process with
// exponential up and down times. Each member starts in the stationary
// distribution (down with probability mttr/(mttf+mttr), for an exponential
// residual time), so that the expected fraction of the fault window during
// which a quorum is up is exactly the binomial prediction. Every member is
// restarted by end, so the settle window starts with all of them up.
func genCrashRestart(p params, c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	mttf, mttr := p.dur("mttf"), p.dur("mttr")
	var s sim.Schedule
	crash := func(m string, at, down time.Duration) {
		s = append(s, sim.Fault{At: at, Kind: sim.FaultCrash, Targets: [][]string{{m}}, For: min(down, end-at)})
	}
	for _, m := range c.Members {
		at := time.Duration(0)
		if rng.Float64() >= StationaryUp(mttf, mttr) {
			down := expDur(rng, mttr)
			crash(m, 0, down)
			at = down
		}
		for {
			at += expDur(rng, mttf)
			if at >= end {
				break
			}
			down := expDur(rng, mttr)
			crash(m, at, down)
			at += down
		}
	}
	return s
}

// genPartitions draws partitions as a Poisson process.
func genPartitions(p params, c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	rate := p.num("rate")
	if rate <= 0 || len(c.Members) < 2 {
		return nil
	}
	mean := time.Duration(float64(time.Minute) / rate)
	dur := p.dur("duration")
	var s sim.Schedule
	for at := expDur(rng, mean); at < end; at += expDur(rng, mean) {
		f := sim.Fault{At: at, For: dur, Kind: sim.FaultPartition}
		switch p["kind"] {
		case "minority":
			a, b := Split(c, (len(c.Members)-1)/2)
			if len(a) == 0 {
				continue
			}
			f.Targets = [][]string{a, b}
		case "majority":
			a, b := Split(c, len(c.Members)/2+1)
			f.Targets = [][]string{a, b}
		case "leader":
			f.Kind, f.Targets = sim.FaultIsolate, [][]string{{"etcd-leader"}}
		default:
			f.Targets = randomSplit(c, rng)
		}
		s = append(s, f)
	}
	return s
}

// genFlaky degrades every link for the whole run.
func genFlaky(p params, c *Cluster, rng *sim.Stream, end time.Duration) sim.Schedule {
	f := sim.Fault{At: 0, Kind: sim.FaultFlaky, Targets: [][]string{{"*"}}, For: end,
		Loss: p.num("loss"), Dup: p.num("dup"), Reorder: p.num("reorder"), Delay: p.dur("delay")}
	if f.Loss == 0 && f.Dup == 0 && f.Reorder == 0 && f.Delay == 0 {
		return nil
	}
	return sim.Schedule{f}
}
