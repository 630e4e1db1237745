package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
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

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
