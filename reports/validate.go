package reports

import (
	"fmt"
	"math"
	"regexp"

	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// fractions are the metrics that are fractions of a run or of its
// requests; request_success is -1 when no request ended.
var fractions = map[string]bool{
	"quorum_up_fraction": false, "write_availability": false, "read_availability": false,
	"request_success": true,
}

var (
	buildRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+_-]{0,127}$`)
	hashRe  = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// CheckResult returns an error, naming the field, unless r could be the
// result of a run: a scenario, ablation and check names that a scenario
// could have (scenarios.CheckName: letters, digits, '-', '_' and '.', so
// that no name read from a file from elsewhere can carry shell or markdown
// into a replay command or the summary), a fault profile that parses back
// to itself, a member count in 1..7, a positive duration, and metrics that
// are finite, either non-negative or -1 (the "none" of several metrics),
// with fractions in [0, 1].
func CheckResult(r *scenarios.Result) error {
	if err := scenarios.CheckName(r.Scenario); err != nil {
		return fmt.Errorf("scenario %q is not a scenario name", r.Scenario)
	}
	if r.Members < 1 || r.Members > scenarios.MaxMembers {
		return fmt.Errorf("members %d outside 1..%d", r.Members, scenarios.MaxMembers)
	}
	for _, a := range r.Ablations {
		if scenarios.CheckName(a) != nil {
			return fmt.Errorf("ablation %q is not an ablation name", a)
		}
	}
	if r.Profile != nil {
		text := r.Profile.String()
		p, err := nemesis.ParseProfile(text)
		if err != nil || p.String() != text {
			return fmt.Errorf("profile %q is not a fault profile in canonical form", text)
		}
	}
	if r.Duration < 0 {
		return fmt.Errorf("duration_ns %d is negative", int64(r.Duration))
	}
	for _, f := range []struct {
		name string
		x    float64
	}{{"virtual_seconds", r.VirtualSeconds}, {"wall_seconds", r.WallSeconds}} {
		if math.IsNaN(f.x) || math.IsInf(f.x, 0) || f.x < 0 {
			return fmt.Errorf("%s %v is not a non-negative number", f.name, f.x)
		}
	}
	if r.RunDuration() <= 0 {
		return fmt.Errorf("no duration: neither duration_ns nor virtual_seconds is positive")
	}
	if r.Build != "" && !buildRe.MatchString(r.Build) {
		return fmt.Errorf("build %q is not a build name", r.Build)
	}
	if r.ScheduleHash != "" && !hashRe.MatchString(r.ScheduleHash) {
		return fmt.Errorf("schedule_hash %q is not 16 hex digits", r.ScheduleHash)
	}
	for _, c := range r.Checks {
		if scenarios.CheckName(c.Name) != nil {
			return fmt.Errorf("check %q is not a check name", c.Name)
		}
	}
	for _, name := range sim.SortedKeys(r.Metrics) {
		x := r.Metrics[name]
		none, isFraction := fractions[name]
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("metric %q is %v", name, x)
		case isFraction && !(x >= 0 && x <= 1 || none && x == -1):
			return fmt.Errorf("metric %q %v is not a fraction in [0, 1]", name, x)
		case x < 0 && x != -1:
			return fmt.Errorf("metric %q %v is negative", name, x)
		}
	}
	if len(r.WriteLatencyHist) > len(metrics.LatencyBucketsMs)+1 {
		return fmt.Errorf("write_latency_hist has %d buckets, more than the %d there are", len(r.WriteLatencyHist), len(metrics.LatencyBucketsMs)+1)
	}
	for i, n := range r.WriteLatencyHist {
		if n < 0 {
			return fmt.Errorf("write_latency_hist[%d] %d is negative", i, n)
		}
	}
	return nil
}
