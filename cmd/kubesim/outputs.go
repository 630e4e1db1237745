package main

import (
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/kubesim/kubesim/sim"
)

// stdoutName is the file name that means standard output.
const stdoutName = "-"

// pipeOut is standard output carrying a trace stream. When its reader goes
// away (kubesim run --timeline - | head), the write fails with EPIPE: it
// then stops the world, so that the run ends at once, and remembers it, so
// that the run exits quietly.
type pipeOut struct {
	w      io.Writer
	world  *sim.World
	closed bool
}

func (p *pipeOut) Write(b []byte) (int, error) {
	if p.closed {
		return 0, syscall.EPIPE
	}
	n, err := p.w.Write(b)
	if err != nil && isBrokenPipe(err) {
		p.closed = true
		if p.world != nil {
			p.world.Stop()
		}
	}
	return n, err
}

// isBrokenPipe reports whether err says the reader of a pipe went away.
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }

// runOutputs are the streams of `kubesim run`: the trace and the timeline,
// each to a file or to standard output.
type runOutputs struct {
	stdout          *pipeOut
	toStdout        bool // a stream goes to standard output
	trace, timeline io.Writer
	files           []*os.File
	flushes         []func() error
}

// openOutputs opens the files of --trace and --timeline, before the world
// is built, so that a bad path costs no work.
func openOutputs(f *runFlags, stdout io.Writer) (*runOutputs, error) {
	o := &runOutputs{stdout: &pipeOut{w: stdout}}
	var err error
	if f.tracePath != "" {
		if o.trace, err = o.open(f.tracePath); err != nil {
			return nil, usagef("run: --trace: %v", err)
		}
	}
	if f.timelinePath != "" {
		if o.timeline, err = o.open(f.timelinePath); err != nil {
			o.finish()
			return nil, usagef("run: --timeline: %v", err)
		}
	}
	return o, nil
}

// attach subscribes the streams' writers to w's trace; filter, when set,
// selects the timeline's events.
func (o *runOutputs) attach(w *sim.World, filter *timelineFilter) {
	o.stdout.world = w
	if o.trace != nil {
		o.flushes = append(o.flushes, sim.NewJSONLWriter(w, o.trace).Flush)
	}
	if o.timeline != nil {
		t := sim.NewTimelineWriter(w, o.timeline)
		if filter != nil {
			t.Filter = func(e *sim.Event) bool { return filter.keep(w, e) }
		}
		o.flushes = append(o.flushes, t.Flush)
	}
}

// summary is where the run's result goes: standard output, unless a
// stream goes there, which must stay clean for the program reading it.
func (o *runOutputs) summary(stderr io.Writer) io.Writer {
	if o.toStdout {
		return stderr
	}
	return o.stdout.w
}

// open opens path for a stream: "-" is standard output.
func (o *runOutputs) open(path string) (io.Writer, error) {
	if path == stdoutName {
		o.toStdout = true
		return o.stdout, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	o.files = append(o.files, f)
	return f, nil
}

// finish flushes and closes every stream and returns the first error.
func (o *runOutputs) finish() error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, f := range o.flushes {
		keep(f())
	}
	for _, f := range o.files {
		keep(f.Close())
	}
	return first
}
