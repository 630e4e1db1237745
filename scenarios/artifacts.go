package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubesim/kubesim/checks"
)

// Artifacts are the files written for a failing run.
type Artifacts struct {
	Dir      string
	Trace    string // JSONL, one event per line
	Timeline string // one line per event, virtual time first
	// Porcupine holds porcupine's HTML visualizations, one per failed
	// linearizability check (checks.Visualizer) with a violation to show.
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

// ArtifactName is a file-name-safe name for a run.
func ArtifactName(o Options) string {
	name := fmt.Sprintf("%s-m%d-s%d", o.Scenario, o.Members, o.Seed)
	if len(o.Ablations) > 0 {
		name += "-" + strings.Join(o.Ablations, "+")
	}
	return name
}

// WriteArtifacts replays the run of opts (it is deterministic, so the replay
// is the same run) with the trace recorded, and writes the trace as JSONL
// and as a timeline under dir, plus porcupine's visualization of each
// failed linearizability check, named after the check.
func WriteArtifacts(opts Options, dir string) (Artifacts, error) {
	a := Artifacts{Dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return a, err
	}
	base := filepath.Join(dir, ArtifactName(opts))
	var jsonl, timeline bytes.Buffer
	opts.Trace, opts.Timeline = &jsonl, &timeline
	p, err := Prepare(opts)
	if err != nil {
		return a, err
	}
	res, err := p.Run()
	if err != nil {
		return a, err
	}
	a.Trace, a.Timeline = base+".trace.jsonl", base+".timeline.txt"
	if err := os.WriteFile(a.Trace, jsonl.Bytes(), 0o644); err != nil {
		return a, err
	}
	if err := os.WriteFile(a.Timeline, timeline.Bytes(), 0o644); err != nil {
		return a, err
	}
	for i, c := range p.Checks {
		v, ok := c.(checks.Visualizer)
		if !ok || res.Checks[i].OK {
			continue
		}
		var html bytes.Buffer
		if err := v.WriteVisualization(&html); errors.Is(err, checks.ErrNoVisualization) {
			continue // a failure without a violation to show: porcupine timed out
		} else if err != nil {
			return a, err
		}
		path := base + "." + c.Name() + ".porcupine.html"
		if err := os.WriteFile(path, html.Bytes(), 0o644); err != nil {
			return a, err
		}
		a.Porcupine = append(a.Porcupine, path)
	}
	return a, nil
}

// FailureReport is the text a failing run prints: each failed check with
// its first offending events, the commands that replay it, and the files
// written.
func FailureReport(r Result, o Options, a Artifacts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s with %d members, seed %d: FAIL\n", r.Scenario, r.Members, r.Seed)
	for _, c := range r.Failed() {
		b.WriteString("  " + strings.ReplaceAll(c.String(), "\n", "\n  ") + "\n")
	}
	fmt.Fprintf(&b, "replay with:\n  %s\n  %s\n", GoTestCommand(r), ReplayCommand(r))
	for _, p := range a.Paths() {
		fmt.Fprintf(&b, "wrote %s\n", p)
	}
	return b.String()
}

// GoTestCommand is the `go test` command that replays r.
func GoTestCommand(r Result) string {
	return "go test ./scenarios -run 'TestChaos$'" + replayFlags(r, "-")
}
