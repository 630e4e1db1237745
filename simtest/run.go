package simtest

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// Run runs spec, a user's scenario, over seeds and member counts (see
// Seeds and Members, and the flags, which override them) and fails t at
// the first world a check fails in, or whose trace differs when the same
// seed runs twice. The failure prints each failed check with its first
// offending events, the go test command that replays that one world, and
// the trace (JSONL), timeline and porcupine visualizations it wrote under
// the artifact directory. Run returns the results of the worlds it ran.
//
// spec need not be registered (scenarios.Register); an unnamed spec is
// named after the test. The replay command names the test's package by
// its import path, found from the call stack; when it cannot be (a test of
// package main), it says to run `go test .` in the package's directory.
func Run(t testing.TB, spec scenarios.Spec, opts ...Option) []scenarios.Result {
	t.Helper()
	h := newHarness(t, spec, opts)
	out, err := h.run()
	for _, l := range out.logs {
		t.Log(l)
	}
	if err != nil {
		t.Fatal(err)
	}
	if out.failure != nil {
		t.Fatal("\n" + out.failure.report)
	}
	return out.results
}

// RunScenario is Run for a scenario by name: one a package registered
// (scenarios.Register), or the catalogue's.
func RunScenario(t testing.TB, name string, opts ...Option) []scenarios.Result {
	t.Helper()
	spec, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return Run(t, spec, opts...)
}

// newHarness is the harness of a Run or ExpectFailure in test t, with the
// test binary's flags; it fails t when they do not parse.
func newHarness(t testing.TB, spec scenarios.Spec, opts []Option) harness {
	t.Helper()
	flags, err := read(flag.CommandLine)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _ := testPackage(t.Name())
	return harness{spec: spec, cfg: newConfig(opts), flags: flags, test: t.Name(), pkg: pkg}
}

// harness is one Run, apart from its testing.TB, so that tests can run it
// with flags of their own.
type harness struct {
	spec  scenarios.Spec
	cfg   config
	flags settings
	test  string // t.Name()
	pkg   string // the test's import path, "" when unknown
}

// outcome is what a harness run found.
type outcome struct {
	results []scenarios.Result // the worlds run (the failing one last)
	failure *failure
	logs    []string
}

// failure is the failing world, and what the harness wrote and prints of
// it.
type failure struct {
	result    scenarios.Result
	opts      scenarios.Options
	replay    string
	artifacts scenarios.Artifacts
	report    string
	sameSeed  bool // the same seed gave two traces (no check failed)
}

// plan returns the member counts and seeds to run, flags first.
func (h harness) plan() ([]int, []uint64, error) {
	members := h.cfg.members
	switch {
	case h.flags.members > 0:
		members = []int{h.flags.members}
	case len(members) == 0 && len(h.spec.Members) > 0:
		members = h.spec.Members
	case len(members) == 0:
		members = []int{3}
	}
	if h.flags.seed != 0 {
		return members, []uint64{h.flags.seed}, nil
	}
	n := h.cfg.seeds
	if h.flags.seeds > 0 {
		n = h.flags.seeds
	}
	if n < 1 {
		return nil, nil, fmt.Errorf("simtest: Seeds(%d): run at least one seed", n)
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return members, seeds, nil
}

// name is the spec's name, or one made from the test's.
func (h harness) name() string {
	if h.spec.Name != "" {
		return h.spec.Name
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, h.test)
}

// options are one world's.
func (h harness) options(members int, seed uint64) scenarios.Options {
	return scenarios.Options{
		Scenario:  h.spec.Name,
		Members:   members,
		Seed:      seed,
		Duration:  h.cfg.duration,
		Schedule:  h.cfg.schedule,
		Profile:   h.cfg.profile,
		Ablations: append(append([]string(nil), h.cfg.ablations...), h.flags.ablate...),
	}
}

// runOne builds and runs one world.
func (h harness) runOne(o scenarios.Options) (scenarios.Result, error) {
	p, err := scenarios.PrepareSpec(h.spec, o)
	if err != nil {
		return scenarios.Result{}, fmt.Errorf("simtest: %s with %d members, seed %d: %w", h.spec.Name, o.Members, o.Seed, err)
	}
	return p.Run()
}

// run runs the plan and stops at the first failing world.
func (h harness) run() (outcome, error) {
	h.spec.Name = h.name()
	var out outcome
	members, seeds, err := h.plan()
	if err != nil {
		return out, err
	}
	for _, m := range members {
		for i, seed := range seeds {
			o := h.options(m, seed)
			res, err := h.runOne(o)
			if err != nil {
				return out, err
			}
			out.results = append(out.results, res)
			if !res.OK {
				out.failure = h.fail(res, o, "")
				return out, nil
			}
			if i == 0 && h.cfg.sameSeedTwice {
				again, err := h.runOne(o)
				if err != nil {
					return out, err
				}
				if again.TraceHash != res.TraceHash || again.Events != res.Events {
					out.failure = h.fail(again, o, sameSeedMessage(res, again))
					return out, nil
				}
			}
			if h.flags.seed != 0 {
				out.logs = append(out.logs, fmt.Sprintf("%s with %d members, seed %d: ok, trace hash %s, %d events", res.Scenario, m, seed, res.TraceHash, res.Events))
			}
		}
	}
	out.logs = append(out.logs, fmt.Sprintf("%s: %d world(s) ok (members %v, seeds %d to %d)", h.spec.Name, len(out.results), members, seeds[0], seeds[len(seeds)-1]))
	return out, nil
}

// sameSeedMessage says that one seed ran two ways.
func sameSeedMessage(a, b scenarios.Result) string {
	return fmt.Sprintf("same seed twice: the trace differs (hash %s, %d events, then %s, %d events):\n"+
		"  something on the simulation path is not a function of the seed: a goroutine, a channel, the wall clock,\n"+
		"  global randomness, a map range whose order reaches behaviour, or state kept between worlds\n"+
		"  (simtest.CheckDeterminism reads your packages for the first five; compare two runs' timelines for the rest)\n",
		a.TraceHash, a.Events, b.TraceHash, b.Events)
}

// fail writes the failing world's artifacts and its report.
func (h harness) fail(res scenarios.Result, o scenarios.Options, why string) *failure {
	f := &failure{result: res, opts: o, replay: replayCommand(h.pkg, h.test, res, h.flags.ablate, h.cfg.replayFlags), sameSeed: why != ""}
	dir := h.cfg.artifactDir
	if dir == "" {
		dir = scenarios.ArtifactDir()
	}
	art, err := scenarios.WriteArtifactsSpec(h.spec, o, dir)
	f.artifacts = art
	var b strings.Builder
	if why != "" {
		fmt.Fprintf(&b, "%s with %d members, seed %d: FAIL\n  %s", res.Scenario, res.Members, res.Seed, why)
		fmt.Fprintf(&b, "replay with:\n  %s\n", f.replay)
		for _, p := range art.Paths() {
			fmt.Fprintf(&b, "wrote %s\n", p)
		}
	} else {
		b.WriteString(scenarios.FailureReportWith(res, art, f.replay))
	}
	if err != nil {
		fmt.Fprintf(&b, "writing the artifacts under %s: %v\n", dir, err)
	}
	f.report = b.String()
	return f
}
