// Command kubesim runs kubesim's scenarios: one world at a time (run), or
// the catalogues of scenarios and ablations.
//
//	kubesim run --scenario NAME --members N --seed S [--duration D] [--json] [--trace FILE]
//	            [--timeline FILE] [--schedule FILE] [--ablate NAME]... [--save-failures DIR]
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
)

// usageError is bad input: the message is printed on one line and the exit
// status is 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errChecksFailed makes the exit status 1 after the report was printed.
var errChecksFailed = errors.New("checks failed")

const usage = `usage: kubesim <command> [flags]

commands:
  run        run one world: kubesim run --scenario NAME --members N --seed S
  scenarios  list the named scenarios
  ablations  list the ablation switches

Run 'kubesim <command> -h' for a command's flags.`

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

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
	default:
		fmt.Fprintln(stderr, "kubesim: "+err.Error())
		return 1
	}
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return usagef("no command given: try 'kubesim run --scenario etcd-chaos --members 3 --seed 1'")
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "scenarios":
		return cmdScenarios(args[1:], stdout)
	case "ablations":
		return cmdAblations(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usagef("unknown command %q: want run, scenarios or ablations", args[0])
}
