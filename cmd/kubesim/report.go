package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kubesim/kubesim/reports"
)

const reportUsage = `usage: kubesim report [--out DIR] DIR...

Merges the results*.jsonl files of every DIR (sweep output directories, or
results .jsonl files; shards from many machines, a run found twice counts
once), writes report.html and the plots (PNG and SVG) into the output
directory, prints a markdown summary, and prints the report's path last.
Without --out the report goes into the first DIR, unless that holds a report
already: it is then left alone, and --out names where to write (the same
DIR to replace it).`

// cmdReport is `kubesim report [--out DIR] DIR...`.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "write report.html and the plots into this directory, created if needed (default: the first DIR, if it holds no report yet)")
	dirs, err := parseWithArgs(fs, args)
	if err == flag.ErrHelp {
		fmt.Fprintln(stdout, reportUsage+"\n\nflags:")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil
	}
	if err != nil {
		return usagef("report: %v (see 'kubesim report -h')", err)
	}
	if len(dirs) == 0 {
		return usagef("report: no results directory given: try 'kubesim report kubesim-sweep'")
	}
	dest := *out
	if dest == "" {
		dest = dirs[0]
		if filepath.Ext(dest) == ".jsonl" {
			dest = filepath.Dir(dest)
		}
		if existing := existingReport(dest); existing != "" {
			return usagef("report: %s holds a report already (%s); replace it with --out %s, or write elsewhere with --out DIR", dest, existing, dest)
		}
	}
	return writeReport(dirs, dest, stdout, stderr)
}

// parseWithArgs parses flags that may come before, between or after the
// positional arguments, and returns those arguments.
func parseWithArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// existingReport returns the name of a report file that dir holds, or "".
func existingReport(dir string) string {
	for _, name := range reports.ReportFiles() {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return name
		}
	}
	return ""
}

// writableDir creates dir if needed and checks that a file can be created
// in it, so that an unwritable place is reported before any work. The
// error says why, without repeating dir.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return withoutPath(err, dir)
	}
	f, err := os.CreateTemp(dir, ".kubesim-write-check-*")
	if err != nil {
		return withoutPath(err, "")
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// withoutPath reduces a path error on dir (or on any path, when dir is "")
// to its reason: "mkdir x: not a directory" becomes "not a directory".
func withoutPath(err error, dir string) error {
	var pe *os.PathError
	if errors.As(err, &pe) && (dir == "" || filepath.Clean(pe.Path) == filepath.Clean(dir)) {
		return pe.Err
	}
	return err
}

// writeReport loads the results of dirs and writes the report into out,
// which it creates if needed.
func writeReport(dirs []string, out string, stdout, stderr io.Writer) error {
	set, warnings, err := reports.Load(dirs...)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "kubesim: warning: "+w)
	}
	if err != nil {
		return usagef("report: %v", err)
	}
	if err := writableDir(out); err != nil {
		return usagef("report: cannot write the report into %s (%v): name a directory you can write with --out DIR", out, err)
	}
	if _, err := reports.WritePlots(out, set); err != nil {
		return err
	}
	if err := reports.WriteHTML(out, set); err != nil {
		return err
	}
	if err := reports.WriteMarkdown(stdout, set); err != nil {
		return err
	}
	fmt.Fprintln(stdout, filepath.Join(out, reports.ReportFile))
	return nil
}
