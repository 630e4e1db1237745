package sweep

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
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
	// Other counts the results in the file that are not runs of this
	// grid: runs of another build, duration, profile or seed range, kept
	// in the file but not reused.
	Other       int
	ResultsPath string
	Interrupted bool
}

// Run runs the grid's runs that the output directory does not hold yet,
// in parallel, one world per goroutine. The grid is validated first
// (Grid.Validate) and never materialised: the runs of this shard are
// computed from their positions as workers take them, so the first run
// starts at once whatever the grid's size, and memory does not depend on
// it; the only thing that grows with the sweep is the index of finished
// runs read from the results file (one bit per run of the shard, in
// blocks). Each finished run is appended as one JSON line to the results
// file at once (and synced at least every second), so a killed sweep loses
// only the runs in flight and resumes where it stopped; a finished sweep
// run again changes nothing. A result in the file counts as done only if
// it has the key of a run of the grid (Grid.Index): a run of another
// duration, profile or build is run again. A failing run is also written
// as a corpus entry under Out/corpus/.
func Run(cfg Config) (Summary, error) {
	sum := Summary{}
	if err := cfg.Grid.Validate(); err != nil {
		return sum, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return sum, err
	}
	total := cfg.Grid.Len()
	sum.Total = cfg.Shard.Len(total)
	path := filepath.Join(cfg.Out, cfg.Shard.ResultsFile())
	sum.ResultsPath = path
	done, other, err := repairAndIndex(path, cfg.Grid, cfg.Shard)
	if err != nil {
		return sum, err
	}
	sum.Skipped, sum.Other = done.n, other
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
				res, err := runRecovered(o)
				res.WallSeconds = time.Since(start).Seconds()
				results <- outcome{res, o, err}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range cfg.Shard.Positions(total) {
			if done.has(cfg.Shard.Local(i)) {
				continue
			}
			if cfg.Stop != nil && cfg.Stop() {
				return
			}
			next <- cfg.Grid.At(i)
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

// runWorld runs one world; a variable only so that a test can make it
// panic, as a bug would.
var runWorld = scenarios.Run

// PanicError is a run that panicked: a bug in kubesim, not a failed check.
// The sweep records every other run and returns the first such error;
// Stack is the panicking goroutine's, for the bug report.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// runRecovered runs one world and turns its panic into a *PanicError, so
// that one bug ends neither the other workers nor the recording of their
// results.
func runRecovered(o scenarios.Options) (res scenarios.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return runWorld(o)
}

// MaxLineBytes bounds one line of a results file: a result is a few
// kilobytes, so a longer line is not one (a binary file, a stream of zeros).
const MaxLineBytes = 16 << 20

// repairAndIndex reads the results file, cuts off a truncated last line
// left by a killed writer, and returns the index of the shard's runs it
// holds and the number of results that are not runs of the grid. It reads
// one line at a time: only the index grows with the file. Its errors wrap
// an *fs.PathError: the file cannot be read as results.
func repairAndIndex(path string, g Grid, sh Shard) (*doneSet, int, error) {
	done := &doneSet{}
	// Stat first: opening a FIFO in the file's place would block.
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if st.IsDir() {
		return nil, 0, fmt.Errorf("%w: move it aside, or choose another --out", &fs.PathError{Op: "open results", Path: path, Err: syscall.EISDIR})
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%w: move it aside, or choose another --out", &fs.PathError{Op: "open results", Path: path, Err: errors.New("not a regular file")})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	other := 0
	good := int64(0)
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	for {
		var complete bool
		line, complete, err = scenarios.ReadLine(r, line[:0], MaxLineBytes)
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		if len(line) > MaxLineBytes {
			return nil, 0, fmt.Errorf("%w: move the file aside to start over", &fs.PathError{Op: "read results", Path: path,
				Err: fmt.Errorf("the line at byte %d is longer than %d bytes, so not a result", good, MaxLineBytes)})
		}
		if !complete {
			break // a last line without newline is incomplete: cut it
		}
		var res scenarios.Result
		if json.Unmarshal(line, &res) != nil {
			return nil, 0, fmt.Errorf("%w: move the file aside to start over", &fs.PathError{Op: "read results", Path: path,
				Err: fmt.Errorf("the line at byte %d is not a result", good)})
		}
		if i, ok := g.Index(&res); ok && sh.Owns(i) {
			done.add(sh.Local(i))
		} else {
			other++
		}
		good += int64(len(line)) + 1
	}
	if good < st.Size() {
		if err := os.Truncate(path, good); err != nil {
			return nil, 0, err
		}
	}
	return done, other, nil
}

// doneSet is a set of non-negative ints as a bitmap in blocks of 2^16, so
// that the finished runs of a shard, which come mostly in order, cost a
// bit each.
type doneSet struct {
	blocks map[int]*[1024]uint64
	n      int
}

func (d *doneSet) add(i int) {
	if d.blocks == nil {
		d.blocks = map[int]*[1024]uint64{}
	}
	b := d.blocks[i>>16]
	if b == nil {
		b = new([1024]uint64)
		d.blocks[i>>16] = b
	}
	w, bit := (i&0xffff)>>6, uint64(1)<<(i&63)
	if b[w]&bit == 0 {
		b[w] |= bit
		d.n++
	}
}

func (d *doneSet) has(i int) bool {
	b := d.blocks[i>>16]
	return b != nil && b[(i&0xffff)>>6]&(1<<(i&63)) != 0
}
