// Package reports turns sweep results into plots and a report.
//
// A sweep (package sweep) appends one JSON line per finished run (a
// scenarios.Result) to results*.jsonl files, one per shard. Load merges
// those files, from one directory or several machines, checks every line
// (CheckResult) and drops duplicates; Aggregate groups the runs by
// scenario, fault profile, ablations, duration, schedule, build and member
// count; WritePlots draws the plots with gonum/plot as PNG and
// SVG; WriteHTML writes one self-contained report.html with the plots
// inline as SVG; WriteMarkdown prints a summary.
//
// Nothing here runs on a simulation path, except RecordTimeline, which
// re-runs one world through scenarios.Prepare like any other caller.
package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kubesim/kubesim/scenarios"
)

// Set is a merged, de-duplicated collection of run results.
type Set struct {
	// Results are sorted by scenario, profile, ablations, duration,
	// schedule, build, member count and seed; no two have the same run key.
	Results []scenarios.Result
	// Sources are the files read, in the order they were read.
	Sources []string
	// Duplicates counts the lines dropped because an earlier line (or
	// shard) already held the same run.
	Duplicates int
	// Skipped counts the lines dropped because they were not results, or
	// held impossible values (CheckResult).
	Skipped int

	groups   []*Group
	timeline *timelineCache
}

// ResultsGlob matches the files a sweep writes into its directory:
// results.jsonl, or results-shard-I-of-N.jsonl for a shard.
const ResultsGlob = "results*.jsonl"

// The limits of what Load reads: a result is a few kilobytes, so a longer
// line is not one; a file past MaxFileBytes is refused, as its results
// would not fit in memory anyway (report the shards of such a sweep apart).
const (
	MaxLineBytes = 16 << 20
	MaxFileBytes = 4 << 30
)

// Load reads every path, a directory (all its results*.jsonl files) or a
// file (a regular file or a pipe), and merges the runs. A run is identified by its key
// (scenarios.Result.Key: scenario, members, seed, duration, profile,
// schedule, ablations and build); when shards overlap, the first
// occurrence wins, so nothing is counted twice, and runs that differ in
// any of these, such as runs of two lengths, are never merged. Every line
// is checked (CheckResult): one that does not parse, that holds an
// impossible value or a name that is not one (the truncated last line of a
// killed writer, a binary file) is skipped, and each file with skipped
// lines gives one warning that counts them and names the first. It is an
// error if a path is missing or neither a file nor a directory, if a
// directory holds no results*.jsonl file, if a file is larger than
// MaxFileBytes, or if no run at all was read.
func Load(paths ...string) (*Set, []string, error) {
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("no results directory given")
	}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", p, unwrapPathErr(err))
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() && st.Mode()&fs.ModeNamedPipe == 0 {
				return nil, nil, fmt.Errorf("%s: not a results file (neither a regular file, a pipe nor a directory)", p)
			}
			files = append(files, p)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, ResultsGlob))
		if err != nil {
			return nil, nil, err
		}
		sort.Strings(matches)
		if len(matches) == 0 {
			return nil, nil, fmt.Errorf("%s: no %s file in the directory (is it a sweep's output directory?)", p, ResultsGlob)
		}
		files = append(files, matches...)
	}
	set := &Set{}
	var warnings []string
	seen := map[string]bool{}
	for _, f := range files {
		if slices.Contains(set.Sources, f) {
			continue // the same file named twice
		}
		set.Sources = append(set.Sources, f)
		stats, err := readResults(f, func(r scenarios.Result) {
			k := r.Key()
			if seen[k] {
				set.Duplicates++
				return
			}
			seen[k] = true
			set.Results = append(set.Results, r)
		})
		if err != nil {
			return nil, warnings, err
		}
		if w := stats.warning(f); w != "" {
			warnings = append(warnings, w)
		}
		set.Skipped += stats.skipped()
	}
	if len(set.Results) == 0 {
		return nil, warnings, fmt.Errorf("no results in %s", strings.Join(paths, ", "))
	}
	sort.SliceStable(set.Results, func(i, j int) bool { return lessResult(&set.Results[i], &set.Results[j]) })
	return set, warnings, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// fileStats counts what reading one results file skipped, and keeps the
// first reason of each kind.
type fileStats struct {
	lines              int
	bad, impossible    int
	firstBad, firstImp string
	truncated          bool
}

func (s *fileStats) skipped() int {
	n := s.bad + s.impossible
	if s.truncated {
		n++
	}
	return n
}

// warning is the file's one warning line, or "" when nothing was skipped.
func (s *fileStats) warning(name string) string {
	if s.skipped() == 0 {
		return ""
	}
	var parts []string
	if s.bad > 0 {
		parts = append(parts, fmt.Sprintf("%d not results (the first: %s)", s.bad, s.firstBad))
	}
	if s.impossible > 0 {
		parts = append(parts, fmt.Sprintf("%d with impossible values (the first: %s)", s.impossible, s.firstImp))
	}
	if s.truncated {
		parts = append(parts, fmt.Sprintf("a truncated last line at line %d (a killed writer?)", s.lines))
	}
	return fmt.Sprintf("%s: skipped %d of %d lines: %s", name, s.skipped(), s.lines, strings.Join(parts, "; "))
}

// readResults reads one JSONL file a line at a time, checks every line,
// and passes on the results. A last line without its newline is the mark
// of a killed writer.
func readResults(name string, visit func(scenarios.Result)) (*fileStats, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, unwrapPathErr(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > maxFileBytes {
		return nil, tooLarge(name)
	}
	st := &fileStats{}
	lr := &io.LimitedReader{R: f, N: maxFileBytes + 1}
	r := bufio.NewReaderSize(lr, 64<<10)
	var line []byte
	for {
		var complete bool
		line, complete, err = scenarios.ReadLine(r, line[:0], MaxLineBytes)
		if lr.N <= 0 {
			return nil, tooLarge(name)
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %v", name, unwrapPathErr(err))
		}
		if len(line) == 0 && !complete {
			return st, nil
		}
		st.lines++
		where := fmt.Sprintf("line %d", st.lines)
		switch {
		case len(line) > MaxLineBytes:
			st.bad++
			if st.firstBad == "" {
				st.firstBad = fmt.Sprintf("%s, longer than %d bytes", where, MaxLineBytes)
			}
		case len(bytes.TrimSpace(line)) == 0:
			st.lines-- // blank lines are not counted
		default:
			var res scenarios.Result
			err := json.Unmarshal(line, &res)
			switch {
			case err != nil && !complete:
				st.truncated = true
			case err != nil:
				st.bad++
				if st.firstBad == "" {
					st.firstBad = fmt.Sprintf("%s: %v", where, err)
				}
			default:
				if err := CheckResult(&res); err != nil {
					st.impossible++
					if st.firstImp == "" {
						st.firstImp = fmt.Sprintf("%s: %v", where, err)
					}
				} else {
					visit(res)
				}
			}
		}
		if !complete {
			return st, nil
		}
	}
}

// maxFileBytes is MaxFileBytes, lowered by tests.
var maxFileBytes int64 = MaxFileBytes

func tooLarge(name string) error {
	return fmt.Errorf("%s: more than %d bytes, more than a report reads: report fewer results at once (the shards of a sweep apart)", name, maxFileBytes)
}

// profileString is the result's profile as the --faults flag takes it, or
// "" for the scenario's own faults.
func profileString(r *scenarios.Result) string {
	if r.Profile == nil {
		return ""
	}
	return r.Profile.String()
}

func lessResult(a, b *scenarios.Result) bool {
	if a.Scenario != b.Scenario {
		return a.Scenario < b.Scenario
	}
	if pa, pb := profileString(a), profileString(b); pa != pb {
		return pa < pb
	}
	if aa, ab := strings.Join(a.Ablations, ","), strings.Join(b.Ablations, ","); aa != ab {
		return aa < ab
	}
	if ba, bb := a.Buggify != nil, b.Buggify != nil; ba != bb {
		return bb
	}
	if da, db := a.RunDuration(), b.RunDuration(); da != db {
		return da < db
	}
	if a.ScheduleHash != b.ScheduleHash {
		return a.ScheduleHash < b.ScheduleHash
	}
	if a.Build != b.Build {
		return a.Build < b.Build
	}
	if a.Members != b.Members {
		return a.Members < b.Members
	}
	return a.Seed < b.Seed
}
