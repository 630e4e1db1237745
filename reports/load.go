// Package reports turns sweep results into plots and a report.
//
// A sweep (package sweep) appends one JSON line per finished run (a
// scenarios.Result) to results*.jsonl files, one per shard. Load merges
// those files, from one directory or several machines, and drops
// duplicates; Aggregate groups the runs by scenario, fault profile and
// member count; WritePlots draws the plots with gonum/plot as PNG and
// SVG; WriteHTML writes one self-contained report.html with the plots
// inline as SVG; WriteMarkdown prints a summary.
//
// Nothing here runs on a simulation path, except RecordTimeline, which
// re-runs one world through scenarios.Prepare like any other caller.
package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kubesim/kubesim/scenarios"
)

// Set is a merged, de-duplicated collection of run results.
type Set struct {
	// Results are sorted by scenario, profile, ablations, member count and
	// seed; no two have the same run key.
	Results []scenarios.Result
	// Sources are the files read, in the order they were read.
	Sources []string
	// Duplicates counts the lines dropped because an earlier line (or
	// shard) already held the same run.
	Duplicates int

	groups   []*Group
	timeline *timelineCache
}

// ResultsGlob matches the files a sweep writes into its directory:
// results.jsonl, or results-shard-I-of-N.jsonl for a shard.
const ResultsGlob = "results*.jsonl"

// Load reads every path, a directory (all its results*.jsonl files) or a
// .jsonl file, and merges the runs. A run is identified by its key
// (scenarios.Result.Key: scenario, members, seed, profile, ablations); when
// shards overlap, the first occurrence wins, so nothing is counted twice. A line that does not
// parse (such as the truncated last line of a killed writer) is skipped with
// a warning. It is an error if a path is missing, if a directory holds no
// results*.jsonl file, or if no run at all was read.
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
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", f, unwrapPathErr(err))
		}
		set.Sources = append(set.Sources, f)
		rs, ws := parseResults(f, data)
		warnings = append(warnings, ws...)
		for _, r := range rs {
			k := r.Key()
			if seen[k] {
				set.Duplicates++
				continue
			}
			seen[k] = true
			set.Results = append(set.Results, r)
		}
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

// parseResults decodes one JSONL file. Bad lines become warnings; a last
// line without its newline is the mark of a killed writer.
func parseResults(name string, data []byte) ([]scenarios.Result, []string) {
	var out []scenarios.Result
	var warnings []string
	lines := bytes.Split(data, []byte{'\n'})
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r scenarios.Result
		err := json.Unmarshal(line, &r)
		if err == nil && r.Scenario == "" {
			err = fmt.Errorf("no scenario field")
		}
		if err != nil {
			if i == len(lines)-1 {
				warnings = append(warnings, fmt.Sprintf("%s:%d: skipped a truncated last line (a killed writer?): %v", name, i+1, err))
			} else {
				warnings = append(warnings, fmt.Sprintf("%s:%d: skipped a line that is not a result: %v", name, i+1, err))
			}
			continue
		}
		out = append(out, r)
	}
	return out, warnings
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
	if a.Members != b.Members {
		return a.Members < b.Members
	}
	return a.Seed < b.Seed
}
