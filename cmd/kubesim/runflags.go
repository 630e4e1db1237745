package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

const runHelp = `usage: kubesim run --scenario NAME [--members N] [--seed S] [flags]

Runs one world and prints its checks and metrics (exit status 1 when a check
fails, with the command that replays the run). --trace and --timeline write
the trace as it happens; with - they write to standard output, and the
summary goes to standard error. A reader that stops early (kubesim run ...
--timeline - | head) ends the run there, quietly.`

// runFlags are the flags of `kubesim run`.
type runFlags struct {
	scenario, schedulePath, faults, saveFailures, artifacts string
	tracePath, timelinePath                                 string
	members                                                 int
	seed                                                    uint64
	duration                                                time.Duration
	asJSON, allowLong, buggify                              bool
	ablate, timelineFilter                                  stringList
	filter                                                  *timelineFilter // parsed from timelineFilter
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.scenario, "scenario", "", "scenario name (see 'kubesim scenarios')")
	fs.IntVar(&f.members, "members", 3, "etcd members, 1 to 7")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed that determines everything")
	fs.DurationVar(&f.duration, "duration", 0, "virtual run length, e.g. 90s (default: the scenario's)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of text")
	fs.BoolVar(&f.allowLong, "allow-long", false, "allow a --duration over "+maxDuration.String()+" (virtual)")
	fs.StringVar(&f.tracePath, "trace", "", "write the trace as JSONL to this file (- for standard output)")
	fs.StringVar(&f.timelinePath, "timeline", "", "write the trace as a readable timeline to this file (- for standard output):\none line per event: sequence number (the \"event N\" of check offenses), virtual time, host, kind, details")
	fs.Var(&f.timelineFilter, "timeline-filter", timelineFilterHelp)
	fs.StringVar(&f.schedulePath, "schedule", "", "run this fault schedule file (text form) instead of the scenario's faults")
	fs.StringVar(&f.faults, "faults", "", "draw the faults from this profile NAME[:key=value,...] instead of the scenario's")
	fs.StringVar(&f.saveFailures, "save-failures", "", "if a check fails, write a corpus entry for the run into this directory")
	fs.StringVar(&f.artifacts, "artifacts", "", "write the trace (JSONL), the timeline and, when a linearizability check fails,\nporcupine's HTML into this directory (the files a failing go test writes)")
	fs.Var(&f.ablate, "ablate", "turn on an ablation (repeatable; see 'kubesim ablations')")
	fs.BoolVar(&f.buggify, "buggify", false, "switch BUGGIFY on: the simulated processes take rare but legal paths now and then,\nat points the seed activates (see docs/buggify.md); the output lists them")
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
	if err := checkLong("run", f.duration, f.allowLong); err != nil {
		return opts, err
	}
	if f.saveFailures != "" {
		if err := writableDir(f.saveFailures); err != nil {
			return opts, usagef("run: --save-failures %s: cannot write there (%v): name a directory you can write", f.saveFailures, err)
		}
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
	var err error
	if f.filter, err = parseTimelineFilter(f.timelineFilter); err != nil {
		return opts, usagef("run: %v", err)
	}
	if f.artifacts != "" {
		if err := writableDir(f.artifacts); err != nil {
			return opts, usagef("run: --artifacts %s: cannot write there (%v): name a directory you can write", f.artifacts, err)
		}
	}
	opts = scenarios.Options{Scenario: f.scenario, Members: f.members, Seed: f.seed, Duration: f.duration, Ablations: f.ablate, Buggify: f.buggify}
	if f.faults != "" {
		if f.schedulePath != "" {
			return opts, usagef("run: give --faults or --schedule, not both")
		}
		p, err := nemesis.ParseProfile(f.faults)
		if err != nil {
			return opts, usagef("run: --faults: %v", err)
		}
		opts.Profile = &p
	}
	if f.schedulePath != "" {
		text, err := readInput(f.schedulePath, maxScheduleBytes)
		if err != nil {
			return opts, usagef("run: --schedule: %v", err)
		}
		if strings.TrimSpace(text) == "" {
			return opts, usagef("run: --schedule %s is empty: write one fault per line (see docs/faults.md), or a comment such as '# no faults' for a run without any", f.schedulePath)
		}
		s, err := sim.ParseSchedule(f.schedulePath, text)
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

// maxDuration is the longest virtual run taken without --allow-long: a
// month, far past any scenario's length and any figure a sweep reports, so
// that a slip such as 100000h is refused instead of running for hours.
const maxDuration = 30 * 24 * time.Hour

// checkLong refuses a duration over maxDuration unless allowed.
func checkLong(cmd string, d time.Duration, allowed bool) error {
	if d > maxDuration && !allowed {
		return usagef("%s: --duration %v is over %v of virtual time, which would run for hours: shorten it, or add --allow-long if you mean it", cmd, d, maxDuration)
	}
	return nil
}

// maxScheduleBytes bounds a schedule file: about 200,000 faults.
const maxScheduleBytes = 8 << 20

// readInput reads a file given on the command line, refusing one larger
// than limit bytes, so that /dev/zero, a FIFO or an endless stream is
// refused instead of filling memory.
func readInput(path string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", fmt.Errorf("%s is larger than %d MiB: it is not a schedule (one fault per line)", path, limit>>20)
	}
	return string(b), nil
}
