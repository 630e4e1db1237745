package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/sim"
)

// Artifacts are the files written for a run.
type Artifacts struct {
	Dir      string
	Trace    string // JSONL, one event per line
	Timeline string // one line per event, trace position and virtual time first
	// Porcupine holds porcupine's HTML visualizations, one per failed
	// linearizability check (checks.Visualizer) with a violation to show,
	// named after the check.
	Porcupine []string
}

// Paths lists the files that were written.
func (a Artifacts) Paths() []string {
	var out []string
	for _, p := range append([]string{a.Trace, a.Timeline}, a.Porcupine...) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ArtifactName is a file-name-safe name for a run: scenario, members, seed,
// then what else sets it apart (ablations, the profile's name, BUGGIFY, an
// explicit schedule, a duration other than the scenario's).
func ArtifactName(o Options) string {
	name := fmt.Sprintf("%s-m%d-s%d", o.Scenario, o.Members, o.Seed)
	if len(o.Ablations) > 0 {
		name += "-" + strings.Join(o.Ablations, "+")
	}
	if o.Profile != nil {
		name += "-" + o.Profile.Name
	}
	if o.Buggify {
		name += "-buggify"
	}
	if o.Schedule != nil {
		name += "-schedule"
	}
	if o.Duration != 0 {
		name += "-" + o.Duration.String()
	}
	return name
}

// ArtifactRecorder writes a run's trace, as JSONL and as a timeline, into
// files while the run runs; Finish adds porcupine's visualizations.
type ArtifactRecorder struct {
	a        Artifacts
	files    []*os.File
	flushers []func() error
}

// RecordArtifacts subscribes the artifact writers to p's world, which must
// not have run yet, creating dir if needed. Call Finish after p.Run.
func RecordArtifacts(p *Prepared, dir string) (*ArtifactRecorder, error) {
	if p.World.Trace().Len() != 0 {
		return nil, fmt.Errorf("record artifacts: the world has already run %d events", p.World.Trace().Len())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r := &ArtifactRecorder{a: Artifacts{Dir: dir}}
	base := filepath.Join(dir, ArtifactName(p.Options))
	trace, err := r.create(base + ".trace.jsonl")
	if err != nil {
		return nil, err
	}
	timeline, err := r.create(base + ".timeline.txt")
	if err != nil {
		r.close()
		return nil, err
	}
	r.a.Trace, r.a.Timeline = trace.Name(), timeline.Name()
	r.flushers = append(r.flushers, sim.NewJSONLWriter(p.World, trace).Flush, sim.NewTimelineWriter(p.World, timeline).Flush)
	return r, nil
}

func (r *ArtifactRecorder) create(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err == nil {
		r.files = append(r.files, f)
	}
	return f, err
}

// close closes the files and returns the first error.
func (r *ArtifactRecorder) close() error {
	var first error
	for _, f := range r.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.files = nil
	return first
}

// Finish flushes and closes the trace files and, for every linearizability
// check that failed in res, writes porcupine's visualization beside them.
// It returns the files written (those written before an error, too).
func (r *ArtifactRecorder) Finish(p *Prepared, res Result) (Artifacts, error) {
	var first error
	for _, f := range r.flushers {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	if err := r.close(); err != nil && first == nil {
		first = err
	}
	if first != nil {
		return r.a, first
	}
	base := filepath.Join(r.a.Dir, ArtifactName(p.Options))
	for i, c := range p.Checks {
		v, ok := c.(checks.Visualizer)
		if !ok || i >= len(res.Checks) || res.Checks[i].OK {
			continue
		}
		var html bytes.Buffer
		if err := v.WriteVisualization(&html); errors.Is(err, checks.ErrNoVisualization) {
			continue // a failure without a violation to show: porcupine timed out
		} else if err != nil {
			return r.a, err
		}
		path := base + "." + c.Name() + ".porcupine.html"
		if err := os.WriteFile(path, html.Bytes(), 0o644); err != nil {
			return r.a, err
		}
		r.a.Porcupine = append(r.a.Porcupine, path)
	}
	return r.a, nil
}

// WriteArtifacts replays the run of opts (it is deterministic, so the replay
// is the same run) with the trace recorded, and writes the trace as JSONL
// and as a timeline under dir, plus porcupine's visualization when a
// linearizability check fails. opts.Scenario names a catalogue scenario or
// a registered one (Register); WriteArtifactsSpec takes any spec.
func WriteArtifacts(opts Options, dir string) (Artifacts, error) {
	spec, err := Lookup(opts.Scenario)
	if err != nil {
		return Artifacts{Dir: dir}, err
	}
	return WriteArtifactsSpec(spec, opts, dir)
}

// WriteArtifactsSpec is WriteArtifacts for a spec that need not be
// registered (as PrepareSpec is Prepare's): a user's own, built in the
// test that runs it. opts.Scenario is ignored; the files are named after
// spec.Name.
func WriteArtifactsSpec(spec Spec, opts Options, dir string) (Artifacts, error) {
	opts.Trace, opts.Timeline = nil, nil
	p, err := PrepareSpec(spec, opts)
	if err != nil {
		return Artifacts{Dir: dir}, err
	}
	rec, err := RecordArtifacts(p, dir)
	if err != nil {
		return Artifacts{Dir: dir}, err
	}
	res, err := p.Run()
	a, ferr := rec.Finish(p, res)
	if err == nil {
		err = ferr
	}
	return a, err
}

// ArtifactDir is where a failing test writes its artifacts: the directory
// $KUBESIM_ARTIFACTS names, or kubesim-failures under the system's
// temporary directory (it outlives the test, unlike testing.T.TempDir).
func ArtifactDir() string {
	if d := os.Getenv("KUBESIM_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "kubesim-failures")
}

// FailureReport is the text a failing run prints: each failed check with
// its first offending events, the commands that replay it, and the files
// written. A catalogue scenario's commands are GoTestCommand's and
// ReplayCommand's; kubesim knows no command that replays a spec outside
// the catalogue (only the test that ran it can), so for one the report
// says so: simtest.Run passes its own test's command to FailureReportWith.
func FailureReport(r Result, o Options, a Artifacts) string {
	if !InCatalogue(r.Scenario) {
		return FailureReportWith(r, a)
	}
	return FailureReportWith(r, a, GoTestCommand(r), ReplayCommand(r))
}

// FailureReportWith is FailureReport with the replay commands given: the
// caller's, for a spec kubesim cannot replay by itself. With none, the
// report says how a spec outside the catalogue is replayed.
func FailureReportWith(r Result, a Artifacts, replay ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s with %d members, seed %d: FAIL\n", r.Scenario, r.Members, r.Seed)
	for _, c := range r.Failed() {
		b.WriteString("  " + strings.ReplaceAll(c.String(), "\n", "\n  ") + "\n")
	}
	if len(replay) == 0 {
		fmt.Fprintf(&b, "replay: %s is not a catalogue scenario, so no kubesim command replays it: rerun the test that ran it with this seed (simtest.Run prints the command)\n", r.Scenario)
	} else {
		b.WriteString("replay with:\n")
		for _, c := range replay {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	for _, p := range a.Paths() {
		fmt.Fprintf(&b, "wrote %s\n", p)
	}
	return b.String()
}

// GoTestCommand is the `go test` command that replays r, a run of a
// catalogue scenario, through kubesim's TestChaos. It is "" for a spec
// outside the catalogue: kubesim's test binary does not hold it (simtest's
// ReplayCommand gives the user's own test's command).
func GoTestCommand(r Result) string {
	if !InCatalogue(r.Scenario) {
		return ""
	}
	return "go test ./catalogue -run 'TestChaos$'" + replayFlags(r, "-")
}
