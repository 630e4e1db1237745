package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

// Grid is a sweep: every combination of profile, member count and seed.
type Grid struct {
	Scenario  string
	Members   []int
	Seeds     int
	SeedBase  uint64 // the first seed; seeds are SeedBase .. SeedBase+Seeds-1
	Profiles  []nemesis.Profile
	Duration  time.Duration // 0: the scenario's
	Ablations []string
}

// Jobs lists the grid's runs in a fixed order: profile, then member count,
// then seed.
func (g Grid) Jobs() []scenarios.Options {
	var out []scenarios.Options
	profiles := g.Profiles
	if len(profiles) == 0 {
		profiles = []nemesis.Profile{{}}
	}
	for _, p := range profiles {
		for _, m := range g.Members {
			for i := 0; i < g.Seeds; i++ {
				o := scenarios.Options{Scenario: g.Scenario, Members: m, Seed: g.SeedBase + uint64(i), Duration: g.Duration, Ablations: g.Ablations}
				if p.Name != "" {
					p := p
					o.Profile = &p
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// RunKey identifies a run across shards and restarts.
func RunKey(scenario string, members int, seed uint64, profile *nemesis.Profile, ablations []string) string {
	prof := ""
	if profile != nil {
		prof = profile.String()
	}
	return fmt.Sprintf("%s|%d|%d|%s|%s", scenario, members, seed, prof, strings.Join(ablations, ","))
}

func optionsKey(o scenarios.Options) string {
	return RunKey(o.Scenario, o.Members, o.Seed, o.Profile, o.Ablations)
}

func resultKey(r scenarios.Result) string {
	return RunKey(r.Scenario, r.Members, r.Seed, r.Profile, r.Ablations)
}

// Shard is "i/n": this machine runs the jobs whose position modulo n is i.
type Shard struct{ I, N int }

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || sh.N < 1 || sh.I < 0 || sh.I >= sh.N || fmt.Sprintf("%d/%d", sh.I, sh.N) != s {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return sh, nil
}

// Pick returns the jobs of this shard.
func (s Shard) Pick(jobs []scenarios.Options) []scenarios.Options {
	if s.N <= 1 {
		return jobs
	}
	var out []scenarios.Options
	for i, j := range jobs {
		if i%s.N == s.I {
			out = append(out, j)
		}
	}
	return out
}

// ResultsFile is the name of the JSONL file a sweep (or one shard of it)
// appends to in its output directory.
func (s Shard) ResultsFile() string {
	if s.N <= 1 {
		return "results.jsonl"
	}
	return fmt.Sprintf("results-shard-%d-of-%d.jsonl", s.I, s.N)
}

// SweepConfig says what to run and where.
type SweepConfig struct {
	Grid     Grid
	Shard    Shard
	Parallel int    // worlds at once; 0: all cores
	Out      string // output directory
	// Progress, when set, is called after each finished run with the
	// number done and the total, from one goroutine at a time.
	Progress func(done, total int)
	// Stop, when it returns true, makes the sweep start no new run; runs
	// in flight finish and are recorded.
	Stop func() bool
}

// SweepSummary says what a sweep did.
type SweepSummary struct {
	Total, Skipped, Ran, Failed int
	ResultsPath                 string
	Interrupted                 bool
}

// Sweep runs the grid's runs that the output directory does not hold yet,
// in parallel, one world per goroutine. Each finished run is appended as one
// JSON line to the results file at once (and synced at least every second),
// so a killed sweep loses only the runs in flight and resumes where it stopped; a finished sweep run again
// changes nothing. A failing run is also written as a corpus entry under
// Out/corpus/.
func Sweep(cfg SweepConfig) (SweepSummary, error) {
	sum := SweepSummary{}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return sum, err
	}
	jobs := cfg.Shard.Pick(cfg.Grid.Jobs())
	sum.Total = len(jobs)
	path := filepath.Join(cfg.Out, cfg.Shard.ResultsFile())
	sum.ResultsPath = path
	done, err := repairAndIndex(path)
	if err != nil {
		return sum, err
	}
	var todo []scenarios.Options
	for _, j := range jobs {
		if done[optionsKey(j)] {
			sum.Skipped++
		} else {
			todo = append(todo, j)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return sum, err
	}
	defer f.Close()

	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	// With the default GOGC the collector runs so often that parallel
	// worlds scale badly (1.3x on 2 cores instead of 2x).
	defer debug.SetGCPercent(debug.SetGCPercent(scenarios.GCPercent))
	type outcome struct {
		res  scenarios.Result
		opts scenarios.Options
		err  error
	}
	next := make(chan scenarios.Options)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range next {
				start := time.Now()
				res, err := scenarios.Run(o)
				res.WallSeconds = time.Since(start).Seconds()
				results <- outcome{res, o, err}
			}
		}()
	}
	go func() {
		defer close(next)
		for _, o := range todo {
			if cfg.Stop != nil && cfg.Stop() {
				return
			}
			next <- o
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var firstErr error
	lastSync := time.Now()
	finished := sum.Skipped
	if cfg.Progress != nil {
		cfg.Progress(finished, sum.Total)
	}
	for out := range results {
		if out.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", optionsKey(out.opts), out.err)
			}
			continue
		}
		line, err := json.Marshal(out.res)
		if err == nil {
			// Written at once, so a killed process loses nothing finished;
			// synced at most once a second, so that a slow fsync never
			// stalls the workers (a machine crash may lose the last second).
			_, err = f.Write(append(line, '\n'))
		}
		if err == nil && time.Since(lastSync) >= time.Second {
			err = f.Sync()
			lastSync = time.Now()
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		sum.Ran++
		if !out.res.OK {
			sum.Failed++
			note := "found by sweep: " + scenarios.ReplayCommand(out.res)
			if _, err := scenarios.SaveCorpusEntry(filepath.Join(cfg.Out, "corpus"), scenarios.EntryFor(out.res, out.opts, note)); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		finished++
		if cfg.Progress != nil {
			cfg.Progress(finished, sum.Total)
		}
	}
	if err := f.Sync(); err != nil && firstErr == nil {
		firstErr = err
	}
	sum.Interrupted = finished < sum.Total
	return sum, firstErr
}

// repairAndIndex reads the results file, cuts off a truncated last line
// left by a killed writer, and returns the keys of the runs it holds.
func repairAndIndex(path string) (map[string]bool, error) {
	done := map[string]bool{}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	good := 0
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a last line without newline is incomplete: cut it
		}
		var res scenarios.Result
		if json.Unmarshal(line, &res) != nil {
			return nil, fmt.Errorf("%s: line at byte %d is not a result; move the file aside to start over", path, good)
		}
		done[resultKey(res)] = true
		good += len(line)
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, err
		}
	}
	return done, nil
}
