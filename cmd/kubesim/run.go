package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/kubesim/kubesim/scenarios"
)

// cmdRun is `kubesim run`: one world, its streams, its verdict.
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
	outs, err := openOutputs(&f, stdout)
	if err != nil {
		return err
	}
	p, err := scenarios.Prepare(opts)
	if err == nil && f.filter != nil {
		err = f.filter.checkHosts(p.World)
	}
	if err != nil {
		outs.finish()
		return usagef("run: %v", err)
	}
	outs.attach(p.World, f.filter)
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
		if art, aerr = rec.Finish(p, res); err == nil {
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
	return verdict(&f, opts, res, art, outs.summary(stderr), stderr)
}

// verdict prints the run's result, the files written and, for a failing
// run, the command that replays it (and its corpus entry, if asked).
func verdict(f *runFlags, opts scenarios.Options, res scenarios.Result, art scenarios.Artifacts, summary, stderr io.Writer) error {
	if f.asJSON {
		_ = json.NewEncoder(summary).Encode(res)
	} else {
		printResult(summary, res)
	}
	for _, path := range art.Paths() {
		fmt.Fprintf(stderr, "wrote %s\n", path)
	}
	if res.OK {
		return nil
	}
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

// replayCommand is the exact command line that reproduces a run.
func replayCommand(r scenarios.Result, o scenarios.Options, schedulePath string) string {
	cmd := scenarios.ReplayCommand(r)
	if schedulePath != "" {
		cmd += " --schedule " + scenarios.ShellQuote(schedulePath)
	}
	return cmd
}

func printResult(w io.Writer, r scenarios.Result) {
	fmt.Fprintf(w, "scenario %s, %d members, seed %d", r.Scenario, r.Members, r.Seed)
	if len(r.Ablations) > 0 {
		fmt.Fprintf(w, ", ablations %s", strings.Join(r.Ablations, ","))
	}
	if r.Swarm != nil {
		fmt.Fprintf(w, "\nswarm: %s", r.Swarm)
	}
	if r.Buggify != nil {
		fmt.Fprintf(w, "\nbuggify: %s (active points, times fired)", r.Buggify)
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
