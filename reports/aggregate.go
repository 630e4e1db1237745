package reports

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// Z95 is the two-sided 95% quantile of the standard normal distribution.
const Z95 = 1.96

// Stat is the mean of per-run values with a 95% confidence interval.
//
// The interval is the normal approximation on the per-run values:
// mean ± 1.96·s/√n, with s the sample standard deviation (n-1 in the
// denominator). Each run is one independent world (its own seed), so the
// per-run values are independent; for the few dozen seeds of a sweep the
// approximation is a little narrow (Student's t would use 2.05 for n=30,
// 2.26 for n=10). With n < 2 there is no spread to measure and the half
// width is 0: read such a point as a single run, not as a certainty.
type Stat struct {
	N    int
	Mean float64
	SD   float64 // sample standard deviation
	Half float64 // half width of the 95% interval
}

// Lo and Hi are the ends of the 95% interval.
func (s Stat) Lo() float64 { return s.Mean - s.Half }

// Hi is the upper end of the 95% interval.
func (s Stat) Hi() float64 { return s.Mean + s.Half }

// String prints "0.9712 ± 0.0043".
func (s Stat) String() string { return fmt.Sprintf("%.4f ± %.4f", s.Mean, s.Half) }

// MeanCI returns the mean of xs with its 95% confidence interval.
func MeanCI(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if s.N == 0 {
		return s
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(s.N)
	if s.N < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.Half = Z95 * s.SD / math.Sqrt(float64(s.N))
	return s
}

// CheckCount is how many runs of a group passed and failed one check.
type CheckCount struct {
	Name           string
	Passed, Failed int
}

// Group is the runs of one scenario, fault profile, set of ablations,
// BUGGIFY or not, duration, schedule, build and member count, summarised.
type Group struct {
	Scenario  string
	Profile   *nemesis.Profile // nil: the scenario's own faults
	Ablations []string
	// Buggify says the runs had BUGGIFY on (kept apart from those without).
	Buggify bool
	Members int
	// Duration is the runs' virtual length; ScheduleHash names their
	// explicit schedule ("" for none); Build the build that ran them (""
	// for results that did not record it).
	Duration     time.Duration
	ScheduleHash string
	Build        string
	Runs         []*scenarios.Result
	// variant names the duration, schedule and build in the series name
	// when the results hold more than one of them (Aggregate).
	variant []string

	// Each Stat is over the runs that measured its metric: N is 0 when none
	// did (full-stack and API runs have no etcd KV workload, so no write
	// or read availability), and a report then shows no value.
	QuorumUp   Stat // quorum_up_fraction
	WriteAvail Stat // write_availability
	ReadAvail  Stat // read_availability
	// Means over the runs.
	Elections, Faults, VirtualSeconds float64
	// WriteP50Ms and WriteP99Ms are means over the WriteLatencyRuns runs
	// that had a successful write.
	WriteP50Ms, WriteP99Ms float64
	WriteLatencyRuns       int
	// RecoveryMean is the mean of recovery_mean_s over the RecoveryRuns
	// runs that recovered from at least one fault; RecoveryMax the largest
	// recovery_max_s. Both are 0 when no run recovered from a fault.
	RecoveryMean, RecoveryMax float64
	RecoveryRuns              int
	// Passed and Failed count runs whose checks all passed, or not.
	Passed, Failed int
	Checks         []CheckCount // by check name
	// LatencyHist is the sum of the runs' write latency histograms, per
	// metrics.LatencyBucketsMs bucket (the last one unbounded).
	LatencyHist []int
	// Prediction is the binomial probability that a quorum is up, when
	// HasPrediction (the profile has mttf and mttr).
	Prediction    float64
	HasPrediction bool
	// FaultRate is the profile's fault rate (see FaultRate), when HasRate.
	FaultRate float64
	RateUnit  string
	HasRate   bool
	// Stack summarises full-stack runs (Stack.Runs is 0 for others).
	Stack StackStat
	// Traffic summarises what the application's users saw, in runs with
	// traffic (Traffic.Runs is 0 for others).
	Traffic TrafficStat
}

// StackStat summarises the control plane of a group's full-stack runs
// (those that report converge_s).
type StackStat struct {
	Runs int
	// Converge is the time to converge after the faults (converge_s) over
	// the runs that converged; NotConverged counts the others.
	Converge     Stat
	NotConverged int
	// Means over the runs: replica-seconds of pods a ReplicaSet ran beyond
	// what it wanted, healthy containers a probe restarted, and pods the
	// controller manager created.
	DoubleRunning, HealthyRestarts, PodCreates float64
}

// ProfileName is the group's profile as the --faults flag takes it, or
// "scenario faults" for the scenario's own schedule.
func (g *Group) ProfileName() string {
	if g.Profile == nil {
		return "scenario faults"
	}
	return g.Profile.String()
}

// SeriesName names the group's series: everything but the member count.
// The duration, schedule and build are named only when the results hold
// runs of more than one of them, so that such runs are told apart.
func (g *Group) SeriesName() string {
	s := g.Scenario + " / " + g.ProfileName()
	if len(g.Ablations) > 0 {
		s += " / ablate " + strings.Join(g.Ablations, ",")
	}
	if g.Buggify {
		s += " / buggify"
	}
	if v := g.variantName(); v != "" {
		s += " / " + v
	}
	return s
}

// variantName names the group's duration, schedule and build as far as
// they tell it apart from other groups, or "".
func (g *Group) variantName() string { return strings.Join(g.variant, " / ") }

func (g *Group) seriesKey() string {
	return g.Scenario + "|" + g.ProfileName() + "|" + strings.Join(g.Ablations, ",") + "|" + g.runKind()
}

// runKind is what, beyond scenario, profile and ablations, the group's
// runs share: BUGGIFY, duration, schedule and build.
func (g *Group) runKind() string {
	return fmt.Sprintf("%v|%v|%s|%s", g.Buggify, g.Duration, g.ScheduleHash, g.Build)
}

// Groups returns the set's runs grouped by scenario, profile, ablations and
// member count, in that order. Ablated runs are kept apart from the others
// so that a deliberately broken mechanism never pulls an average down.
func (s *Set) Groups() []*Group {
	if s.groups == nil {
		s.groups = Aggregate(s.Results)
	}
	return s.groups
}

// Aggregate groups and summarises results (in the order of their first
// appearance once sorted, see Set.Results).
func Aggregate(results []scenarios.Result) []*Group {
	byKey := map[string]*Group{}
	var groups []*Group
	for i := range results {
		r := &results[i]
		k := fmt.Sprintf("%s|%s|%s|%v|%v|%s|%s|%d", r.Scenario, profileString(r), strings.Join(r.Ablations, ","), r.Buggify != nil,
			r.RunDuration(), r.ScheduleHash, r.Build, r.Members)
		g := byKey[k]
		if g == nil {
			g = &Group{Scenario: r.Scenario, Profile: r.Profile, Ablations: r.Ablations, Buggify: r.Buggify != nil, Members: r.Members,
				Duration: r.RunDuration(), ScheduleHash: r.ScheduleHash, Build: r.Build}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.Runs = append(g.Runs, r)
	}
	sort.SliceStable(groups, func(i, j int) bool { return lessResult(groups[i].Runs[0], groups[j].Runs[0]) })
	nameVariants(groups)
	for _, g := range groups {
		g.summarise()
	}
	return groups
}

// nameVariants gives each group the names of its duration, schedule and
// build, for each of them of which the groups hold more than one.
func nameVariants(groups []*Group) {
	durations, schedules, builds := map[time.Duration]bool{}, map[string]bool{}, map[string]bool{}
	for _, g := range groups {
		durations[g.Duration], schedules[g.ScheduleHash], builds[g.Build] = true, true, true
	}
	for _, g := range groups {
		if len(durations) > 1 {
			g.variant = append(g.variant, g.Duration.String())
		}
		if len(schedules) > 1 {
			if g.ScheduleHash == "" {
				g.variant = append(g.variant, "no schedule")
			} else {
				g.variant = append(g.variant, "schedule "+g.ScheduleHash)
			}
		}
		if len(builds) > 1 {
			if g.Build == "" {
				g.variant = append(g.variant, "build unrecorded")
			} else {
				g.variant = append(g.variant, "build "+g.Build)
			}
		}
	}
}

func (g *Group) summarise() {
	var qu, wa, ra, el, fa, p50, p99, vs, rec []float64
	checks := map[string]*CheckCount{}
	var names []string
	for _, r := range g.Runs {
		m := r.Metrics
		// measured keeps the metric name when the run has it and, if
		// count is given, counted at least one operation (results written
		// before unmeasured metrics were left out hold zeros instead).
		measured := func(xs *[]float64, name, count string) {
			x, ok := m[name]
			if n, has := m[count]; ok && (count == "" || !has || n > 0) {
				*xs = append(*xs, x)
			}
		}
		measured(&qu, "quorum_up_fraction", "")
		measured(&wa, "write_availability", "writes_attempted")
		measured(&ra, "read_availability", "reads_attempted")
		measured(&el, "leader_elections", "")
		measured(&fa, "faults", "")
		measured(&p50, "write_latency_p50_ms", "writes_ok")
		measured(&p99, "write_latency_p99_ms", "writes_ok")
		vs = append(vs, r.VirtualSeconds)
		// Results from before unmeasured metrics were left out have a
		// recovery_mean_s of 0 for runs without a recovery.
		if x, ok := m["recovery_mean_s"]; ok && (m["faults"] > m["faults_unrecovered"] || x > 0) {
			rec = append(rec, x)
		}
		g.RecoveryMax = max(g.RecoveryMax, m["recovery_max_s"])
		if r.OK {
			g.Passed++
		} else {
			g.Failed++
		}
		for _, c := range r.Checks {
			cc := checks[c.Name]
			if cc == nil {
				cc = &CheckCount{Name: c.Name}
				checks[c.Name] = cc
				names = append(names, c.Name)
			}
			if c.OK {
				cc.Passed++
			} else {
				cc.Failed++
			}
		}
		if len(g.LatencyHist) < len(r.WriteLatencyHist) {
			g.LatencyHist = append(g.LatencyHist, make([]int, len(r.WriteLatencyHist)-len(g.LatencyHist))...)
		}
		for i, n := range r.WriteLatencyHist {
			g.LatencyHist[i] += n
		}
	}
	g.Stack = stackStat(g.Runs)
	g.Traffic = trafficStat(g.Runs)
	g.QuorumUp, g.WriteAvail, g.ReadAvail = MeanCI(qu), MeanCI(wa), MeanCI(ra)
	g.Elections, g.Faults = MeanCI(el).Mean, MeanCI(fa).Mean
	g.WriteP50Ms, g.WriteP99Ms, g.WriteLatencyRuns = MeanCI(p50).Mean, MeanCI(p99).Mean, len(p50)
	g.VirtualSeconds = MeanCI(vs).Mean
	g.RecoveryMean, g.RecoveryRuns = MeanCI(rec).Mean, len(rec)
	sort.Strings(names)
	for _, n := range names {
		g.Checks = append(g.Checks, *checks[n])
	}
	if g.Profile != nil {
		if p, ok := UpProbability(*g.Profile); ok {
			g.Prediction, g.HasPrediction = QuorumUpProbability(g.Members, p), true
		}
		g.FaultRate, g.RateUnit, g.HasRate = FaultRate(*g.Profile)
	}
}

// stackStat summarises the runs that report converge_s.
func stackStat(runs []*scenarios.Result) StackStat {
	var st StackStat
	var conv, dr, hr, pc []float64
	for _, r := range runs {
		c, ok := r.Metrics["converge_s"]
		if !ok {
			continue
		}
		st.Runs++
		if c >= 0 {
			conv = append(conv, c)
		} else {
			st.NotConverged++
		}
		dr = append(dr, r.Metrics["double_running_s"])
		hr = append(hr, r.Metrics["healthy_restarts"])
		pc = append(pc, r.Metrics["cm_pod_creates"])
	}
	st.Converge = MeanCI(conv)
	st.DoubleRunning, st.HealthyRestarts, st.PodCreates = MeanCI(dr).Mean, MeanCI(hr).Mean, MeanCI(pc).Mean
	return st
}

// QuorumUpProbability is the probability that a quorum of n members is up
// when each is up independently with probability p: P(X ≥ n/2+1) for
// X ~ Binomial(n, p).
func QuorumUpProbability(n int, p float64) float64 {
	if n < 1 {
		return 0
	}
	sum := 0.0
	for k := n/2 + 1; k <= n; k++ {
		sum += binom(n, k) * math.Pow(p, float64(k)) * math.Pow(1-p, float64(n-k))
	}
	return min(sum, 1)
}

func binom(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// profileDurations returns the profile's mttf and mttr, when it has both.
func profileDurations(p nemesis.Profile) (mttf, mttr time.Duration, ok bool) {
	f, ferr := time.ParseDuration(p.Params["mttf"])
	r, rerr := time.ParseDuration(p.Params["mttr"])
	if ferr != nil || rerr != nil || f <= 0 || r <= 0 {
		return 0, 0, false
	}
	return f, r, true
}

// UpProbability is the stationary probability that one member is up under
// the profile, nemesis.StationaryUp(mttf, mttr), for profiles with mttf
// and mttr (crash-restart, mixed). Under crash-restart the binomial of it is
// the expected quorum_up_fraction; under mixed, whose partitions also take
// quorums away, it is an upper bound.
func UpProbability(p nemesis.Profile) (float64, bool) {
	mttf, mttr, ok := profileDurations(p)
	if !ok {
		return 0, false
	}
	return nemesis.StationaryUp(mttf, mttr), true
}

// The units of FaultRate.
const (
	UnitCrashes    = "crashes per member-hour"
	UnitPartitions = "partitions per hour"
)

// FaultRate is the profile's fault rate: for a profile with an mttf
// (crash-restart, mixed), crashes per member-hour, 3600/mttf in seconds;
// for partitions, partitions per hour (60 × its rate per minute). Other
// profiles have none.
func FaultRate(p nemesis.Profile) (rate float64, unit string, ok bool) {
	if mttf, _, ok := profileDurations(p); ok {
		return 3600 / mttf.Seconds(), UnitCrashes, true
	}
	if p.Name == "partitions" {
		var r float64
		if _, err := fmt.Sscanf(p.Params["rate"], "%g", &r); err == nil {
			return r * 60, UnitPartitions, true
		}
	}
	return 0, "", false
}

// series groups the set's groups by everything but the member count, in
// order.
func series(groups []*Group) [][]*Group {
	var out [][]*Group
	idx := map[string]int{}
	for _, g := range groups {
		k := g.seriesKey()
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], g)
	}
	return out
}

// memberCounts lists the member counts present, ascending.
func memberCounts(groups []*Group) []int {
	seen := map[int]bool{}
	for _, g := range groups {
		seen[g.Members] = true
	}
	return sim.SortedKeys(seen)
}
