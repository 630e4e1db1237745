package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/scenarios"
)

// RecoveryGroup summarises the disaster-recovery runs
// (catalogue.DisasterRecoveryEvery) of one backup interval: the writes
// lost, the RPO window and the recovery time, each with its 95% interval
// over the runs.
type RecoveryGroup struct {
	Interval time.Duration
	Runs     int
	// Failed counts the runs in which some check failed.
	Failed int
	// WritesLost is rpo_writes_lost; RPOWindow rpo_s; RTO rto_s;
	// Procedure rto_procedure_s.
	WritesLost, RPOWindow, RTO, Procedure Stat
	// MaxRPOWindow is the largest rpo_s of a run, in seconds.
	MaxRPOWindow float64
}

// AggregateRecovery summarises runs by backup interval, in increasing
// order of interval.
func AggregateRecovery(runs map[time.Duration][]scenarios.Result) []RecoveryGroup {
	intervals := make([]time.Duration, 0, len(runs))
	for d := range runs {
		intervals = append(intervals, d)
	}
	slices.Sort(intervals)
	out := make([]RecoveryGroup, 0, len(intervals))
	for _, d := range intervals {
		g := RecoveryGroup{Interval: d, Runs: len(runs[d])}
		var lost, window, rto, proc []float64
		for _, r := range runs[d] {
			if !r.OK {
				g.Failed++
			}
			m := r.Metrics
			lost, window = append(lost, m["rpo_writes_lost"]), append(window, m["rpo_s"])
			rto, proc = append(rto, m["rto_s"]), append(proc, m["rto_procedure_s"])
			g.MaxRPOWindow = max(g.MaxRPOWindow, m["rpo_s"])
		}
		g.WritesLost, g.RPOWindow, g.RTO, g.Procedure = MeanCI(lost), MeanCI(window), MeanCI(rto), MeanCI(proc)
		out = append(out, g)
	}
	return out
}

// RecoveryBackupSlack is how much later than its schedule a backup can be
// durable in the store: the snapshot's stream (etcd.SnapshotStreamTime)
// and the upload's round trip and fsync, well under a second in kubesim.
const RecoveryBackupSlack = etcd.SnapshotStreamTime + 900*time.Millisecond

// RecoveryClaims states and judges the expected relation between the
// backup interval and a recovery from the newest backup:
//   - the RPO window (rpo_s: from the commit of the backup's revision to
//     the last commit lost) never exceeds the interval plus
//     RecoveryBackupSlack, since a backup is taken every interval;
//   - a longer interval loses more: the mean RPO window grows with it
//     (significant at 95%), and with it the writes lost;
//   - the recovery procedure's length (rto_procedure_s) does not depend
//     on the interval: restoring a snapshot does not depend on its age
//     (the means agree within RecoveryEquivalence, 95% interval of their
//     difference included).
//
// A claim that one interval loses more is Supported or Contradicted when
// the difference of the means is significant at 95%, else Inconclusive
// (more seeds would tell), as Claims judges member counts.
func RecoveryClaims(gs []RecoveryGroup) []Claim {
	var out []Claim
	const series = "backup interval"
	for _, g := range gs {
		limit := g.Interval + RecoveryBackupSlack
		c := Claim{Series: series, Text: fmt.Sprintf("with a backup every %v, no recovery loses more than %v of commits", g.Interval, limit),
			Verdict: fmt.Sprintf("largest RPO window %.2f s over %d runs", g.MaxRPOWindow, g.Runs), Outcome: Supported}
		if g.MaxRPOWindow > limit.Seconds() {
			c.Outcome = Contradicted
		}
		out = append(out, c)
	}
	for i := 1; i < len(gs); i++ {
		a, b := gs[i-1], gs[i]
		out = append(out, compareRecovery(a, b, fmt.Sprintf("a backup every %v loses more than one every %v", b.Interval, a.Interval),
			"RPO window", a.RPOWindow, b.RPOWindow, true))
		out = append(out, compareRecovery(a, b, fmt.Sprintf("the recovery procedure takes as long with a backup every %v as every %v", b.Interval, a.Interval),
			"procedure", a.Procedure, b.Procedure, false))
	}
	return out
}

// compareRecovery judges b against a: that b's mean is higher (higher), or
// that the two do not differ significantly (!higher).
func compareRecovery(a, b RecoveryGroup, text, what string, sa, sb Stat, higher bool) Claim {
	d, hd := sb.Mean-sa.Mean, math.Hypot(sa.Half, sb.Half)
	c := Claim{Series: "backup interval", Text: text, Outcome: Inconclusive,
		Verdict: fmt.Sprintf("%s every %v: %s s, every %v: %s s: difference %+.3f ± %.3f", what, b.Interval, sb, a.Interval, sa, d, hd)}
	margin := RecoveryEquivalence.Seconds()
	switch {
	case higher && d-hd > 0, !higher && math.Abs(d)+hd <= margin:
		c.Outcome = Supported
	case higher && d+hd < 0, !higher && math.Abs(d)-hd > margin:
		c.Outcome = Contradicted
	}
	return c
}

// RecoveryEquivalence is how close two mean procedure times must be, their
// 95% interval included, for the claim that they do not depend on the
// interval; they differ by more, interval excluded, to contradict it.
const RecoveryEquivalence = time.Second

// RecoveryMarkdown renders the groups as a markdown table.
func RecoveryMarkdown(gs []RecoveryGroup) string {
	var b strings.Builder
	b.WriteString("| backup interval | runs (failed) | writes lost | RPO window (s) | largest (s) | RTO from the loss (s) | procedure (s) |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "| %v | %d (%d) | %.1f ± %.1f | %.1f ± %.1f | %.1f | %.1f ± %.1f | %.1f ± %.1f |\n", g.Interval, g.Runs, g.Failed,
			g.WritesLost.Mean, g.WritesLost.Half, g.RPOWindow.Mean, g.RPOWindow.Half, g.MaxRPOWindow, g.RTO.Mean, g.RTO.Half, g.Procedure.Mean, g.Procedure.Half)
	}
	return b.String()
}
