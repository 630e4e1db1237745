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
	stdout  *pipeOut
	files   []*os.File
	flushes []func() error
}

// open opens path for a stream: "-" is standard output.
func (o *runOutputs) open(path string) (io.Writer, error) {
	if path == stdoutName {
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
