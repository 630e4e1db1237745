// Command kubesim runs kubesim's scenarios: one world at a time (run), grids
// of worlds in parallel (sweep), reports over their results, and the
// catalogues of scenarios and ablations. With no arguments it runs the main
// job: a default sweep of 3, 4 and 5 etcd members, and its report.
//
//	kubesim
//	kubesim run --scenario NAME --members N --seed S [--duration D] [--json]
//	            [--trace FILE|-] [--timeline FILE|-] [--timeline-filter KEY=PATTERNS]...
//	            [--artifacts DIR] [--schedule FILE | --faults PROFILE] [--ablate NAME]...
//	            [--save-failures DIR]
//	kubesim sweep [--scenario NAME] [--members 3,4,5] [--seeds N] [--seed-base S] [--faults PROFILE]
//	              [--duration D] [--parallel K] [--shard i/n] [--out DIR]
//	kubesim report [--out DIR] DIR...
//	kubesim scenarios
//	kubesim ablations
//
// Exit status: 0 when every check passes, 1 when one fails, 2 for bad input.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// usageError is bad input: the message is printed on one line and the exit
// status is 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errChecksFailed makes the exit status 1 after the report was printed.
var errChecksFailed = errors.New("checks failed")

const usage = `usage: kubesim [<command> [flags]]

With no command, kubesim runs the main job: a sweep of 3, 4 and 5 etcd
members under crash-restart faults, and writes its report.

commands:
  run        run one world: kubesim run --scenario NAME --members N --seed S
             [--trace FILE|-] [--timeline FILE|-] [--timeline-filter kind!=send,deliver,timer]
             [--artifacts DIR] (- is standard output; the summary then goes to standard error)
  sweep      run a grid of worlds in parallel: kubesim sweep --members 3,4,5 --seeds 200 --out DIR
  report     merge sweep results (and shards) and write report.html: kubesim report [--out DIR] DIR...
             (into the first DIR by default; a report already there is replaced only with --out)
  scenarios  list the named scenarios
  ablations  list the ablation switches

Exit status: 0 when every check passes, 1 when one fails, 2 for bad input.
Run 'kubesim <command> -h' for a command's flags.`

func main() {
	// A reader that goes away (kubesim run --timeline - | head) makes
	// writes fail with EPIPE instead of killing the process, so that the
	// run can end quietly on its own terms.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "kubesim: "+ue.msg)
		return 2
	case errors.Is(err, errChecksFailed):
		return 1
	case isBrokenPipe(err):
		// The reader of standard output went away (kubesim ... | head):
		// there is no one left to tell.
		return 0
	default:
		fmt.Fprintln(stderr, "kubesim: "+err.Error())
		return 1
	}
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return mainJob(stdout, stderr)
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "sweep":
		return cmdSweep(args[1:], stdout, stderr)
	case "report":
		return cmdReport(args[1:], stdout, stderr)
	case "scenarios":
		return cmdScenarios(args[1:], stdout)
	case "ablations":
		return cmdAblations(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usagef("unknown command %q: want run, sweep, report, scenarios or ablations (or none, for the main job)", args[0])
}

// mainJobSeeds sizes the main job to a minute or two on 2 cores.
const mainJobSeeds = 200

// mainJob is `kubesim` with no arguments: the default sweep, sized to finish
// in a minute or two on 2 cores, then its report.
func mainJob(stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep", stderr)
	var f sweepFlags
	f.register(fs)
	f.seeds = mainJobSeeds
	f.out = "kubesim-report"
	cfg, err := f.config()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "kubesim: sweeping %s with %s members under %s, %d seeds each, %v per run (virtual)\n",
		f.scenario, f.members, cfg.Grid.Profiles[0].String(), f.seeds, f.duration)
	return runSweep(cfg, stdout, stderr)
}
