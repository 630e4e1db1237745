package docgen

import (
	"fmt"
	"strconv"

	"github.com/kubesim/kubesim/sim"
)

// buggifyPage is docs/buggify.md: what BUGGIFY is, how a run switches it
// on and records it, and every point (sim.BuggifyPoints).
func buggifyPage() Page {
	b := newPage("buggify.md", "BUGGIFY")
	b.WriteString("Faults break the world from outside. BUGGIFY, after FoundationDB's, makes the simulated processes themselves take, now and then, a path that is rare in a real cluster but legal: ")
	b.WriteString("an apply that lags its commit, a peer stream that stalls, a request refused early with 429, a watch event delivered as late as etcd's guarantees allow, a watch cache behind etcd. ")
	b.WriteString("The code behind those paths, and the checks that judge what follows, are then reached in ordinary runs instead of almost never.\n\n")
	b.WriteString("## Switching it on\n\n")
	b.WriteString("BUGGIFY is a run option, off unless asked for: `kubesim run --buggify` and `kubesim sweep --buggify`, `scenarios.Options.Buggify` in Go, ")
	b.WriteString("`\"buggify\": true` in a corpus entry, `-buggify` for `TestChaos`, and bit 3 of the last header byte of the world fuzz targets' input (`FuzzEtcd`, `FuzzAPI`, `FuzzStack`). ")
	b.WriteString("`TestBuggifyChaos` runs every layer's chaos and swarm scenarios with it on and requires every check to pass (2 seeds in `go test ./...`, 20 with 3 and 5 members in the deep catalogue). ")
	b.WriteString("The catalogue's pinned runs (`TestCatalogue`) have it off: a run without BUGGIFY draws nothing from its streams and traces nothing, so it is byte for byte what it was before BUGGIFY existed.\n\n")
	b.WriteString("Three draws decide what happens, each from a random stream of its own, so that switching BUGGIFY on shifts no other component's draws:\n\n")
	fmt.Fprintf(&b.Builder, "1. the run: on or off, as its options say;\n")
	fmt.Fprintf(&b.Builder, "2. each point, once per run: active with probability %s, from the stream `buggify/active/<point>` (a run either exercises a point's path or not, and every subset of the points is as likely);\n", strconv.FormatFloat(sim.BuggifyActiveChance, 'g', -1, 64))
	b.WriteString("3. each time a process asks an active point: it fires with the point's chance (below), from the stream `<host>/buggify/<point>`, which also draws its delay.\n\n")
	b.WriteString("A point asked in a layer the scenario does not build (an API server's point in an etcd scenario) can be active and never fire.\n\n")
	b.WriteString("## What a run records\n\n")
	b.WriteString("Each firing is a trace event on its host, `buggify point=<point> delay=<delay>` in the timeline (`--timeline-filter kind=buggify` shows them alone). ")
	b.WriteString("The result records the points the seed activated and how often each fired (`buggify: {active, fired}` in the JSON; `kubesim run` prints them), ")
	b.WriteString("and the replay command carries `--buggify`, so that a replay activates the same points and fires them at the same moments. A sweep's report keeps BUGGIFY runs a series of their own.\n\n")
	b.WriteString("## What the checks make of it\n\n")
	b.WriteString("Every point's path is legal, so a correct system passes every safety check with BUGGIFY on, and a failure is a bug to fix (or, first, a point to prove legal). ")
	b.WriteString("The checks that bound how long something takes in a quiet cluster (endpoints-timely, no-traffic-to-unready, eviction-timing) are latency bounds, not safety properties: ")
	b.WriteString("their bounds stretch by the delays the points drew near the window they judge (`checks.BuggifyDelays.Stretch`: for each point, the longest delay it drew there, summed over the points, since one request's path passes each point about once). ")
	b.WriteString("Without BUGGIFY nothing stretches. The API scenarios' final observations come 10 s before the end instead of 1 with BUGGIFY on, since a 429's Retry-After of 1 s would otherwise leave the last list unanswered.\n\n")
	b.WriteString("## Points\n\n")
	b.WriteString("Each point is a named constant of package `sim` (`sim.BuggifyApplyLag`, ...), declared once with what follows (`sim.BuggifyPoints`), and asked where it is listed.\n\n")
	b.tableHead("point", "asked in", "what it does when it fires", "chance when active", "delay", "the real behaviour it stands for")
	for _, p := range sim.BuggifyPoints() {
		delay := "none"
		switch {
		case p.Max > p.Min:
			delay = p.Min.String() + " to " + p.Max.String()
		case p.Min > 0:
			delay = p.Min.String()
		}
		b.row("`"+string(p.Point)+"`", cell(p.Where), cell(p.Does), strconv.FormatFloat(p.Chance*100, 'g', -1, 64)+"%", delay, cell(p.Real))
	}
	b.WriteString("\n## What it reaches\n\n")
	b.WriteString("Measured once, when the points were added: every ablation a check catches (but raft-commit-old-term, whose runs livelock for 20 s each) on its scenario, over seeds 1 to 15 with 3 and 5 members, with and without BUGGIFY. ")
	b.WriteString("Most are caught in every run either way. BUGGIFY catches three more often: etcd-local-reads on etcd-leader-partition in 15 of 30 runs instead of 2 (a slow peer stream or a lagging apply leaves a member behind, and its local reads go stale), ")
	b.WriteString("update-trusts-stale-cache on etcd-leader-partition-under-api in 30 instead of 14 (a watch cache behind etcd answers a wrong 409), and kubelet-no-admission on scheduling-pressure in 12 instead of 10. ")
	b.WriteString("Six are caught a little less often (raft-ack-before-fsync 2 instead of 3, watch-resume-from-now 21 instead of 25, compactor-no-learn 16 instead of 19, restore-without-bump 18 instead of 19, etcd-write-without-quorum and gc-owner-by-name 29 instead of 30): the runs diverge, and the moments those need come less often. ")
	b.WriteString("`TestBuggifyWidensReach` pins the first two: a seed that catches the ablation with BUGGIFY and misses it without (and, under `-deep`, the counts above).\n\n")
	b.WriteString("Line coverage is no wider: 30 runs (each layer's chaos and swarm scenarios, seeds 1 to 5, 3 members) reach 6863 statements of `nodes/...` without BUGGIFY and 6842 with it; 44 statements outside the points' own code are reached only with it, 111 only without (snapshot, WAL and membership paths the faults of those seeds happened to reach). ")
	b.WriteString("What BUGGIFY widens is the interleavings: the same code runs with members, streams and caches behind each other, which is where the two ablations above hide.\n")
	b.WriteString("\n## Adding a point\n\n")
	b.WriteString("1. Declare it in `sim/buggify.go`: its constant, and its row in `buggifyInfos` (where it is asked, what it does, the real behaviour and the real code that takes that path, its chance, its delay).\n")
	b.WriteString("2. Ask it in the node package, through the host the process already has (`h.Buggify(p)`, or `h.BuggifyDelay(p)` for a delay), so that with BUGGIFY off the process does exactly what it did: no timer, no message, no draw.\n")
	b.WriteString("3. Test it in that package: active alone it fires and does what it says, the layer stays correct, and inactive or off it never fires; `TestBuggifyReachesEveryPoint` finds it in a chaos scenario.\n")
	b.WriteString("4. If it delays something a latency check bounds, that check must stretch by it (`checks.BuggifyDelays`); run `TestBuggifyChaos` with `-deep`.\n")
	return b.done()
}
