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

func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(os.Stdout)
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

func cmdRun(args []string, stdout, stderr io.Writer) error {
	defer debug.SetGCPercent(debug.SetGCPercent(scenarios.GCPercent))
	fs := newFlagSet("run", stderr)
	scenario := fs.String("scenario", "", "scenario name (see 'kubesim scenarios')")
	members := fs.Int("members", 3, "etcd members, 1 to 7")
	seed := fs.Uint64("seed", 1, "the seed that determines everything")
	duration := fs.Duration("duration", 0, "virtual run length (default: the scenario's)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	tracePath := fs.String("trace", "", "write the trace as JSONL to this file")
	timelinePath := fs.String("timeline", "", "write the trace as a readable timeline to this file")
	schedulePath := fs.String("schedule", "", "run this fault schedule file (text form) instead of the scenario's faults")
	faults := fs.String("faults", "", "draw the faults from this profile NAME[:key=value,...] instead of the scenario's")
	saveFailures := fs.String("save-failures", "", "if a check fails, write a corpus entry for the run into this directory")
	var ablate stringList
	fs.Var(&ablate, "ablate", "turn on an ablation (repeatable; see 'kubesim ablations')")
	if err := parseFlags(fs, args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	if *scenario == "" {
		return usagef("run: --scenario is required (see 'kubesim scenarios')")
	}
	if _, err := scenarios.Lookup(*scenario); err != nil {
		return usagef("run: %v", err)
	}
	if *members < 1 || *members > scenarios.MaxMembers {
		return usagef("run: --members must be between 1 and %d, got %d", scenarios.MaxMembers, *members)
	}
	if *duration < 0 {
		return usagef("run: --duration must be positive, got %v", *duration)
	}
	if _, err := scenarios.ResolveAblations(ablate); err != nil {
		return usagef("run: %v", err)
	}
	opts := scenarios.Options{Scenario: *scenario, Members: *members, Seed: *seed, Duration: *duration, Ablations: ablate}
	if *faults != "" {
		if *schedulePath != "" {
			return usagef("run: give --faults or --schedule, not both")
		}
		p, err := scenarios.ParseProfile(*faults)
		if err != nil {
			return usagef("run: --faults: %v", err)
		}
		opts.Profile = &p
	}
	if *schedulePath != "" {
		text, err := os.ReadFile(*schedulePath)
		if err != nil {
			return usagef("run: --schedule: %v", err)
		}
		s, err := sim.ParseSchedule(*schedulePath, string(text))
		if err != nil {
			return usagef("run: --schedule: %v", err)
		}
		if s == nil {
			s = sim.Schedule{}
		}
		opts.Schedule = s
	}
	var closers []func() error
	open := func(path string) (io.Writer, error) {
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		closers = append(closers, f.Close)
		return f, nil
	}
	var err error
	if *tracePath != "" {
		if opts.Trace, err = open(*tracePath); err != nil {
			return usagef("run: --trace: %v", err)
		}
	}
	if *timelinePath != "" {
		if opts.Timeline, err = open(*timelinePath); err != nil {
			return usagef("run: --timeline: %v", err)
		}
	}
	p, err := scenarios.Prepare(opts)
	if err != nil {
		return usagef("run: %v", err)
	}
	start := time.Now()
	res, err := p.Run()
	res.WallSeconds = time.Since(start).Seconds()
	for _, c := range closers {
		if cerr := c(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printResult(stdout, res)
	}
	if !res.OK {
		fmt.Fprintf(stderr, "FAIL: replay with: %s\n", replayCommand(res, opts, *schedulePath))
		if *saveFailures != "" {
			note := "saved by: " + replayCommand(res, opts, *schedulePath)
			path, err := scenarios.SaveCorpusEntry(*saveFailures, scenarios.EntryFor(res, opts, note))
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
