package sweep

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
	"sync"
	"time"

	"github.com/kubesim/kubesim/scenarios"
)

// Config says what to run and where.
type Config struct {
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

// Summary says what a sweep did.
type Summary struct {
	Total, Skipped, Ran, Failed int
	ResultsPath                 string
	Interrupted                 bool
}

// Run runs the grid's runs that the output directory does not hold yet,
// in parallel, one world per goroutine. Each finished run is appended as one
// JSON line to the results file at once (and synced at least every second),
// so a killed sweep loses only the runs in flight and resumes where it stopped; a finished sweep run again
// changes nothing. A failing run is also written as a corpus entry under
// Out/corpus/.
func Run(cfg Config) (Summary, error) {
	sum := Summary{}
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
		if done[j.Key()] {
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
				firstErr = fmt.Errorf("%s: %w", out.opts.Key(), out.err)
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
		done[res.Key()] = true
		good += len(line)
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, err
		}
	}
	return done, nil
}
