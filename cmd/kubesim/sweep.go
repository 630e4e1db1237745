package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sweep"
)

// parseMembers parses "3,4,5".
func parseMembers(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > scenarios.MaxMembers {
			return nil, fmt.Errorf("--members %q: want a comma-separated list of member counts between 1 and %d, e.g. 3,4,5", s, scenarios.MaxMembers)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--members %q names %d twice: each member count runs once", s, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// sweepFlags are the flags of `kubesim sweep`; the main job uses their
// defaults with a smaller seed count.
type sweepFlags struct {
	scenario, members, shard, out string
	seeds, parallel               int
	seedBase                      uint64
	duration                      time.Duration
	allowLong, buggify            bool
	durationSet                   bool // --duration given: 0 is then refused
	faults, ablate                stringList
}

func (f *sweepFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scenario, "scenario", "etcd-profile", "scenario to sweep (see 'kubesim scenarios')")
	fs.StringVar(&f.members, "members", "3,4,5", "member counts, comma-separated")
	fs.IntVar(&f.seeds, "seeds", 200, "seeds per member count and profile")
	fs.Uint64Var(&f.seedBase, "seed-base", 1, "the first seed")
	fs.Var(&f.faults, "faults", "fault profile NAME[:key=value,...] (repeatable); profiles: "+strings.Join(profileNames(), ", "))
	fs.DurationVar(&f.duration, "duration", 0, "virtual length of each run (default: the scenario's own length)")
	fs.BoolVar(&f.allowLong, "allow-long", false, "allow a --duration over "+maxDuration.String()+" (virtual)")
	fs.IntVar(&f.parallel, "parallel", 0, "worlds at once (default: all cores)")
	fs.StringVar(&f.shard, "shard", "0/1", "run only shard i of n of the grid, e.g. 2/8")
	fs.StringVar(&f.out, "out", "kubesim-sweep", "output directory: results, corpus entries of failing runs, and the report")
	fs.Var(&f.ablate, "ablate", "turn on an ablation in every run (repeatable)")
	fs.BoolVar(&f.buggify, "buggify", false, "switch BUGGIFY on in every run: rare but legal paths of the simulated processes (see docs/buggify.md)")
}

func profileNames() []string {
	var out []string
	for _, l := range nemesis.ProfileNames() {
		out = append(out, strings.Fields(l)[0])
	}
	return out
}

func (f *sweepFlags) config() (sweep.Config, error) {
	var cfg sweep.Config
	spec, err := scenarios.Lookup(f.scenario)
	if err != nil {
		return cfg, usagef("sweep: %v", err)
	}
	members, err := parseMembers(f.members)
	if err != nil {
		return cfg, usagef("sweep: %v", err)
	}
	for _, m := range members {
		if err := spec.SupportsMembers(m); err != nil {
			return cfg, usagef("sweep: %v", err)
		}
	}
	if f.seeds < 1 {
		return cfg, usagef("sweep: --seeds must be at least 1, got %d", f.seeds)
	}
	if last := f.seedBase + uint64(f.seeds-1); last < f.seedBase {
		return cfg, usagef("sweep: --seed-base %d with --seeds %d runs past the largest seed, %d: lower --seed-base", f.seedBase, f.seeds, uint64(math.MaxUint64))
	}
	if f.duration < 0 || f.durationSet && f.duration == 0 {
		return cfg, usagef("sweep: --duration must be positive, got %v", f.duration)
	}
	if err := checkLong("sweep", f.duration, f.allowLong); err != nil {
		return cfg, err
	}
	if f.parallel < 0 {
		return cfg, usagef("sweep: --parallel must not be negative, got %d", f.parallel)
	}
	shard, err := sweep.ParseShard(f.shard)
	if err != nil {
		return cfg, usagef("sweep: %v", err)
	}
	if _, err := scenarios.ResolveAblations(f.ablate); err != nil {
		return cfg, usagef("sweep: %v", err)
	}
	var profiles []nemesis.Profile
	faults := f.faults
	if len(faults) == 0 && f.scenario == "etcd-profile" {
		// Recorded in every result, so that the report can predict.
		faults = stringList{scenarios.DefaultProfile}
	}
	for _, text := range faults {
		p, err := nemesis.ParseProfile(text)
		if err != nil {
			return cfg, usagef("sweep: --faults: %v", err)
		}
		profiles = append(profiles, p)
	}
	cfg = sweep.Config{
		Grid: sweep.Grid{Scenario: f.scenario, Members: members, Seeds: f.seeds, SeedBase: f.seedBase,
			Profiles: profiles, Duration: f.duration, Ablations: f.ablate, Buggify: f.buggify},
		Shard: shard, Parallel: f.parallel, Out: f.out,
	}
	// The grid is checked whole before anything runs (duplicate member
	// counts, seeds that wrap, a grid too large to be meant), and its first
	// run prepared: a bad scenario and duration pair is reported once, not
	// per run.
	if err := cfg.Grid.Validate(); err != nil {
		return cfg, usagef("sweep: %v", err)
	}
	if _, err := scenarios.Prepare(cfg.Grid.At(0)); err != nil {
		return cfg, usagef("sweep: %v", err)
	}
	// Last, as it creates the directory: an unwritable place is reported
	// before any run, not after the first result cannot be saved.
	if f.out == "" {
		return cfg, usagef("sweep: --out must name a directory")
	}
	if err := writableDir(f.out); err != nil {
		return cfg, usagef("sweep: --out %s: cannot write there (%v): name a directory you can write", f.out, err)
	}
	return cfg, nil
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep", stderr)
	var f sweepFlags
	f.register(fs)
	if err := parseFlags(fs, args, sweepHelp, stdout); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	f.durationSet = flagSet(fs, "duration")
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if f.duration == 0 {
		fmt.Fprintf(stderr, "sweep: each run lasts %v (virtual), %s's own length; --duration sets another\n", cfg.Grid.At(0).RunDuration(), f.scenario)
	}
	return runSweep(cfg, stdout, stderr)
}

const sweepHelp = `usage: kubesim sweep [flags]

Runs every combination of fault profile, member count and seed, in
parallel, appending each finished run to DIR/results.jsonl (a sweep run
again resumes where it stopped), then writes the report into DIR.`

// runSweep runs a configured sweep with a progress bar on a terminal,
// stops cleanly on Ctrl-C (keeping every finished run), then writes the
// report.
func runSweep(cfg sweep.Config, stdout, stderr io.Writer) error {
	var stop atomic.Bool
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; ok {
			stop.Store(true)
			fmt.Fprintln(stderr, "\ninterrupted: finishing the runs in flight; run the same command again to resume")
		}
	}()
	cfg.Stop = stop.Load
	if file, ok := stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		var bar *progressbar.ProgressBar
		cfg.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
					progressbar.OptionSetDescription("sweep"), progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish())
			}
			_ = bar.Set(done)
		}
	}
	sum, err := sweep.Run(cfg)
	if cfg.Progress != nil {
		fmt.Fprintln(stderr)
	}
	where := ""
	if st, serr := os.Stat(sum.ResultsPath); sum.ResultsPath != "" && serr == nil && st.Mode().IsRegular() {
		where = "; results in " + sum.ResultsPath
	}
	fmt.Fprintf(stderr, "sweep: %d runs in the grid, %d already done, %d run now, %d failed%s\n",
		sum.Total, sum.Skipped, sum.Ran, sum.Failed, where)
	if sum.Other > 0 {
		fmt.Fprintf(stderr, "sweep: %d results in the file are runs of another grid (another duration, profile, seed range or build): kept, not reused\n", sum.Other)
	}
	if err != nil {
		return err
	}
	if sum.Interrupted {
		return interruptedError{fmt.Sprintf("sweep interrupted: %d of %d runs done; run the same command again to resume", sum.Skipped+sum.Ran, sum.Total)}
	}
	if cfg.Shard.N > 1 {
		// Shards share one directory; the report is written once, after
		// the last shard, by whoever merges them.
		fmt.Fprintf(stderr, "sweep: shard %d/%d done; when every shard is, merge them with: kubesim report %s\n", cfg.Shard.I, cfg.Shard.N, cfg.Out)
		return nil
	}
	// The sweep's own directory: its report is the sweep's to replace.
	return writeReport([]string{cfg.Out}, cfg.Out, stdout, stderr)
}
