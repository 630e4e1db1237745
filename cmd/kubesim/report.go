package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kubesim/kubesim/reports"
)

// cmdReport is `kubesim report DIR...`: it merges the results*.jsonl files
// of every DIR (shards from many machines; a run found twice counts once),
// writes the plots (PNG and SVG) and report.html into the first DIR, prints
// a markdown summary, and prints the report's path last.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprintln(stdout, "usage: kubesim report DIR... (sweep output directories, or results .jsonl files)")
			return nil
		}
		return usagef("report: %v (see 'kubesim report -h')", err)
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		return usagef("report: no results directory given: try 'kubesim report kubesim-sweep'")
	}
	set, warnings, err := reports.Load(dirs...)
	for _, w := range warnings {
		fmt.Fprintln(stderr, "kubesim: warning: "+w)
	}
	if err != nil {
		return usagef("report: %v", err)
	}
	out := dirs[0]
	if filepath.Ext(out) == ".jsonl" {
		out = filepath.Dir(out)
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
