package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// newFlagSet makes a flag set whose parse errors become one-line usage
// errors instead of a printed usage dump.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseFlags parses args; on -h it prints help (a usage text, then the
// flags) to stdout and returns flag.ErrHelp.
func parseFlags(fs *flag.FlagSet, args []string, help string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprintln(stdout, help+"\n\nflags:")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return err
		}
		return usagef("%s: %v (see 'kubesim %s -h')", fs.Name(), err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (see 'kubesim %s -h')", fs.Name(), fs.Arg(0), fs.Name())
	}
	return nil
}

const runHelp = `usage: kubesim run --scenario NAME [--members N] [--seed S] [flags]

Runs one world and prints its checks and metrics (exit status 1 when a check
fails, with the command that replays the run). --trace and --timeline write
the trace as it happens; with - they write to standard output, and the
summary goes to standard error. A reader that stops early (kubesim run ...
--timeline - | head) ends the run there, quietly.`

// runFlags are the flags of `kubesim run`.
type runFlags struct {
	scenario, tracePath, timelinePath, schedulePath, faults, saveFailures, artifacts string
	members                                                                          int
	seed                                                                             uint64
	duration                                                                         time.Duration
	asJSON                                                                           bool
	ablate, timelineFilter                                                           stringList
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scenario, "scenario", "", "scenario name (see 'kubesim scenarios')")
	fs.IntVar(&f.members, "members", 3, "etcd members, 1 to 7")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed that determines everything")
	fs.DurationVar(&f.duration, "duration", 0, "virtual run length, e.g. 90s (default: the scenario's)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of text")
	fs.StringVar(&f.tracePath, "trace", "", "write the trace as JSONL to this file (- for standard output)")
	fs.StringVar(&f.timelinePath, "timeline", "", "write the trace as a readable timeline to this file (- for standard output):\none line per event: sequence number (the \"event N\" of check offenses), virtual time, host, kind, details")
	fs.Var(&f.timelineFilter, "timeline-filter", timelineFilterHelp)
	fs.StringVar(&f.schedulePath, "schedule", "", "run this fault schedule file (text form) instead of the scenario's faults")
	fs.StringVar(&f.faults, "faults", "", "draw the faults from this profile NAME[:key=value,...] instead of the scenario's")
	fs.StringVar(&f.saveFailures, "save-failures", "", "if a check fails, write a corpus entry for the run into this directory")
	fs.StringVar(&f.artifacts, "artifacts", "", "write the trace (JSONL), the timeline and, when a linearizability check fails,\nporcupine's HTML into this directory (the files a failing go test writes)")
	fs.Var(&f.ablate, "ablate", "turn on an ablation (repeatable; see 'kubesim ablations')")
}

// options checks the flags and turns them into the run's options.
func (f *runFlags) options(fs *flag.FlagSet) (scenarios.Options, error) {
	var opts scenarios.Options
	if f.scenario == "" {
		return opts, usagef("run: --scenario is required (see 'kubesim scenarios')")
	}
	if _, err := scenarios.Lookup(f.scenario); err != nil {
		return opts, usagef("run: %v", err)
	}
	if f.members < 1 || f.members > scenarios.MaxMembers {
		return opts, usagef("run: --members must be between 1 and %d, got %d", scenarios.MaxMembers, f.members)
	}
	if flagSet(fs, "duration") && f.duration <= 0 {
		return opts, usagef("run: --duration must be positive, e.g. 90s (leave it out for the scenario's own length), got %v", f.duration)
	}
	if _, err := scenarios.ResolveAblations(f.ablate); err != nil {
		return opts, usagef("run: %v", err)
	}
	if f.tracePath == stdoutName && f.timelinePath == stdoutName {
		return opts, usagef("run: --trace - and --timeline - would both write to standard output: send one of them to a file")
	}
	if len(f.timelineFilter) > 0 && f.timelinePath == "" {
		return opts, usagef("run: --timeline-filter filters the timeline: add --timeline FILE (or - for standard output)")
	}
	opts = scenarios.Options{Scenario: f.scenario, Members: f.members, Seed: f.seed, Duration: f.duration, Ablations: f.ablate}
	if f.faults != "" {
		if f.schedulePath != "" {
			return opts, usagef("run: give --faults or --schedule, not both")
		}
		p, err := scenarios.ParseProfile(f.faults)
		if err != nil {
			return opts, usagef("run: --faults: %v", err)
		}
		opts.Profile = &p
	}
	if f.schedulePath != "" {
		text, err := os.ReadFile(f.schedulePath)
		if err != nil {
			return opts, usagef("run: --schedule: %v", err)
		}
		s, err := sim.ParseSchedule(f.schedulePath, string(text))
		if err != nil {
			return opts, usagef("run: --schedule: %v", err)
		}
		if s == nil {
			s = sim.Schedule{}
		}
		opts.Schedule = s
	}
	return opts, nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	defer debug.SetGCPercent(debug.SetGCPercent(scenarios.GCPercent))
	fs := newFlagSet("run", stderr)
	var f runFlags
	f.register(fs)
	if err := parseFlags(fs, args, runHelp, stdout); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	opts, err := f.options(fs)
	if err != nil {
		return err
	}
	filter, err := parseTimelineFilter(f.timelineFilter)
	if err != nil {
		return usagef("run: %v", err)
	}
	// The summary goes to standard error when standard output carries a
	// stream, so that the stream stays clean for the program reading it.
	summary := stdout
	if f.tracePath == stdoutName || f.timelinePath == stdoutName {
		summary = stderr
	}
	if f.artifacts != "" {
		if err := writableDir(f.artifacts); err != nil {
			return usagef("run: --artifacts %s: cannot write there (%v): name a directory you can write", f.artifacts, err)
		}
	}
	outs := &runOutputs{stdout: &pipeOut{w: stdout}}
	var traceOut, timelineOut io.Writer
	if f.tracePath != "" {
		if traceOut, err = outs.open(f.tracePath); err != nil {
			return usagef("run: --trace: %v", err)
		}
	}
	if f.timelinePath != "" {
		if timelineOut, err = outs.open(f.timelinePath); err != nil {
			outs.finish()
			return usagef("run: --timeline: %v", err)
		}
	}
	p, err := scenarios.Prepare(opts)
	if err == nil && filter != nil {
		err = filter.checkHosts(p.World)
	}
	if err != nil {
		outs.finish()
		return usagef("run: %v", err)
	}
	outs.stdout.world = p.World
	if traceOut != nil {
		outs.flushes = append(outs.flushes, sim.NewJSONLWriter(p.World, traceOut).Flush)
	}
	if timelineOut != nil {
		t := sim.NewTimelineWriter(p.World, timelineOut)
		if filter != nil {
			t.Filter = func(e *sim.Event) bool { return filter.keep(p.World, e) }
		}
		outs.flushes = append(outs.flushes, t.Flush)
	}
	var rec *scenarios.ArtifactRecorder
	if f.artifacts != "" {
		if rec, err = scenarios.RecordArtifacts(p, f.artifacts); err != nil {
			outs.finish()
			return usagef("run: --artifacts: %v", err)
		}
	}
	start := time.Now()
	res, err := p.Run()
	res.WallSeconds = time.Since(start).Seconds()
	if ferr := outs.finish(); err == nil {
		err = ferr
	}
	var art scenarios.Artifacts
	if rec != nil {
		var aerr error
		art, aerr = rec.Finish(p, res)
		if err == nil {
			err = aerr
		}
	}
	if outs.stdout.closed {
		// The reader of the stream went away: the run stopped there, and
		// there is no one left to tell.
		return nil
	}
	if err != nil {
		return err
	}
	if f.asJSON {
		_ = json.NewEncoder(summary).Encode(res)
	} else {
		printResult(summary, res)
	}
	for _, path := range art.Paths() {
		fmt.Fprintf(stderr, "wrote %s\n", path)
	}
	if !res.OK {
		fmt.Fprintf(stderr, "FAIL: replay with: %s\n", replayCommand(res, opts, f.schedulePath))
		if f.saveFailures != "" {
			note := "saved by: " + replayCommand(res, opts, f.schedulePath)
			path, err := scenarios.SaveCorpusEntry(f.saveFailures, scenarios.EntryFor(res, opts, note))
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote corpus entry %s\n", path)
		}
		return errChecksFailed
	}
	return nil
}

// replayCommand is the exact command line that reproduces a run.
func replayCommand(r scenarios.Result, o scenarios.Options, schedulePath string) string {
	cmd := scenarios.ReplayCommand(r)
	if schedulePath != "" {
		cmd += " --schedule " + schedulePath
	}
	return cmd
}

func printResult(w io.Writer, r scenarios.Result) {
	fmt.Fprintf(w, "scenario %s, %d members, seed %d", r.Scenario, r.Members, r.Seed)
	if len(r.Ablations) > 0 {
		fmt.Fprintf(w, ", ablations %s", strings.Join(r.Ablations, ","))
	}
	fmt.Fprintf(w, "\n%.0f virtual seconds in %.2f wall seconds (%.0fx), %d events, trace hash %s\n\n",
		r.VirtualSeconds, r.WallSeconds, r.VirtualSeconds/max(r.WallSeconds, 1e-9), r.Events, r.TraceHash)
	fmt.Fprintln(w, "checks:")
	for _, c := range r.Checks {
		fmt.Fprintln(w, "  "+strings.ReplaceAll(c.String(), "\n", "\n  "))
	}
	fmt.Fprintln(w, "\nmetrics:")
	for _, k := range sortedKeys(r.Metrics) {
		fmt.Fprintf(w, "  %-22s %g\n", k, r.Metrics[k])
	}
	verdict := "PASS"
	if !r.OK {
		verdict = "FAIL"
	}
	fmt.Fprintln(w, "\n"+verdict)
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cmdScenarios(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("scenarios: takes no arguments, got %q", args[0])
	}
	width := 0
	for _, s := range scenarios.Catalogue() {
		width = max(width, len(s.Name))
	}
	for _, s := range scenarios.Catalogue() {
		fmt.Fprintf(stdout, "%-*s  %s\n", width, s.Name, s.Description)
	}
	return nil
}

func cmdAblations(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("ablations: takes no arguments, got %q", args[0])
	}
	width := 0
	for _, a := range scenarios.Ablations() {
		width = max(width, len(a.Name))
	}
	for _, a := range scenarios.Ablations() {
		judge := "caught by: " + a.Check
		if a.Check == "" {
			judge = "measured by: " + a.Measure
		}
		fmt.Fprintf(stdout, "%-*s  removes: %s; %s (scenario %s)\n", width, a.Name, a.Mechanism, judge, a.Scenario)
	}
	return nil
}
