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
// Exit status: 0 when every check passes, 1 when one fails, 2 for bad input,
// 3 for an internal error (a bug in kubesim), 4 when a file or stream could
// not be read or written, 130 when interrupted (see exitStatus).
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/kubesim/kubesim/sweep"
)

// usageError is bad input: the message is printed on one line and the exit
// status is 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errChecksFailed makes the exit status 1 after the report was printed.
var errChecksFailed = errors.New("checks failed")

// The exit statuses, one meaning each, so that a script can tell a failed
// check from bad input, a bug, a full disk and a Ctrl-C (docs/cli.md tables
// them).
const (
	exitOK           = 0   // every check passed
	exitChecksFailed = 1   // a check failed; the output ends with the replay command
	exitBadInput     = 2   // bad input: one line names it and how to fix it
	exitInternal     = 3   // a bug in kubesim: a panic, reported with where it happened
	exitIO           = 4   // a file or stream could not be read or written
	exitInterrupted  = 130 // interrupted (Ctrl-C): finished results are kept
)

// interruptedError is a run or sweep stopped by an interrupt; what finished
// is kept.
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }

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

Exit status: 0 when every check passes, 1 when one fails, 2 for bad input,
3 for an internal error (a bug in kubesim), 4 when a file or stream could
not be read or written, 130 when interrupted.
Run 'kubesim <command> -h' for a command's flags.`

func main() {
	// A reader that goes away (kubesim run --timeline - | head) makes
	// writes fail with EPIPE instead of killing the process, so that the
	// run can end quietly on its own terms.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = reportPanic(r, debug.Stack(), stderr)
		}
	}()
	return exitStatus(commands(args, stdout, stderr), stderr)
}

// commands runs a command line; a variable only so that a test can make it
// panic, as a bug would.
var commands = dispatch

// exitStatus prints err's one line, if it has one to print, and returns
// the status that means what err is.
func exitStatus(err error, stderr io.Writer) int {
	var ue usageError
	var ie interruptedError
	var pe *sweep.PanicError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "kubesim: "+ue.msg)
		return exitBadInput
	case errors.Is(err, errChecksFailed):
		return exitChecksFailed
	case isBrokenPipe(err):
		// The reader of standard output went away (kubesim ... | head):
		// there is no one left to tell.
		return exitOK
	case errors.As(err, &ie):
		fmt.Fprintln(stderr, "kubesim: "+ie.msg)
		return exitInterrupted
	case errors.As(err, &pe):
		// A run of a sweep panicked in its worker: the same one line as
		// a panic of the command itself, naming the run.
		fmt.Fprintf(stderr, "kubesim: internal error (a bug in kubesim; please report it with the command that ran): %v at %s\n", err, panicSite(pe.Stack))
		stderr.Write(pe.Stack)
		return exitInternal
	case isIOError(err):
		fmt.Fprintln(stderr, "kubesim: "+err.Error())
		return exitIO
	default:
		fmt.Fprintln(stderr, "kubesim: internal error (a bug in kubesim; please report it with the command that ran): "+err.Error())
		return exitInternal
	}
}

// isIOError reports whether err is a failure to read or write a file or
// stream: an operating system error, wherever it was wrapped.
func isIOError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) || errors.As(err, &errno) ||
		errors.Is(err, io.ErrShortWrite) || errors.Is(err, io.ErrUnexpectedEOF)
}

// reportPanic turns a panic into one line that says it is a bug and where
// it happened (the innermost kubesim frame), then the goroutine's stack for
// the bug report, and returns exitInternal.
func reportPanic(r any, stack []byte, stderr io.Writer) int {
	fmt.Fprintf(stderr, "kubesim: internal error (a bug in kubesim; please report it with the command that ran): panic: %v at %s\n", r, panicSite(stack))
	stderr.Write(stack)
	return exitInternal
}

// panicSite finds, in a goroutine stack as debug.Stack prints it, the
// file:line of the innermost frame below the panic that is kubesim's own
// code, so that the one line names where.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	afterPanic := false
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			afterPanic = true
			continue
		}
		if !afterPanic || i+1 >= len(lines) || !strings.Contains(l, "kubesim/") || strings.HasPrefix(l, "\t") {
			continue
		}
		site := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(site, " +0x"); j >= 0 {
			site = site[:j]
		}
		return site
	}
	return "an unknown place"
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

// mainJobDuration is the virtual length of the main job's runs (docs/results.md).
const mainJobDuration = 5 * time.Minute

// mainJob is `kubesim` with no arguments: the default sweep, sized to finish
// in a minute or two on 2 cores, then its report.
func mainJob(stdout, stderr io.Writer) error {
	fs := newFlagSet("sweep", stderr)
	var f sweepFlags
	f.register(fs)
	f.seeds = mainJobSeeds
	f.duration = mainJobDuration
	f.out = "kubesim-report"
	cfg, err := f.config()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "kubesim: sweeping %s with %s members under %s, %d seeds each, %v per run (virtual)\n",
		f.scenario, f.members, cfg.Grid.Profiles[0].String(), f.seeds, f.duration)
	return runSweep(cfg, stdout, stderr)
}
