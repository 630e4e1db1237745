package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileCase is one input a careless or hostile user might give, the exit
// status it must get and a fragment of the one line that must name it.
type hostileCase struct {
	args []string
	code int
	want string
}

// hostileFiles writes the files the hostile inputs name into dir and
// returns their paths by short name.
func hostileFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"bad-for":        "10s crash etcd-1 for soon\n",
		"unknown-target": "10s crash etcd-9\n",
		"empty":          "",
		"blank":          "\n  \n\t\n",
		"for-zero":       "10s crash etcd-1 for 0s\n",
		"for-twice":      "10s crash etcd-1 for 5s for 9s\n",
		"param-twice":    "10s flaky * for 5s loss=0.1 loss=0.2\n",
		"loss-nan":       "10s flaky * for 5s loss=NaN\n",
		"loss-big":       "10s flaky * for 5s loss=1.5\n",
		"delay-huge":     "10s flaky * for 5s delay=1h\n",
		"fsync-huge":     "10s slow-disk etcd-1 for 5s fsync=1000h\n",
		"jump-huge":      "10s clock-jump etcd-1 by=100000h\n",
		"drift-huge":     "10s clock-drift etcd-1 rate=1000\n",
		"leader-in-etcd": "10s partition etcd-leader|etcd for 5s\n",
		"same-sides":     "10s partition etcd-1|etcd-1 for 5s\n",
		"after-end":      "1000h crash etcd-1\n",
		"unknown-kind":   "10s explode etcd-1\n",
		"binary":         "\x00\xff\xfe\x01garbage\n",
		"instant-for":    "10s restart-process etcd-1 process=etcd for 5s\n",
		"no-kind":        "10s\n",
		"trigger-colon":  "on raft.state role=leader crash etcd-leader\n",
		"trigger-times":  "on raft.state role=leader times 0: crash etcd-leader\n",
		"trigger-until":  "10s on raft.state until 5s: crash etcd-leader\n",
		"trigger-host":   "on raft.state etcd-9 role=leader: crash etcd-leader\n",
		"trigger-after":  "1000h on raft.state: crash etcd-1\n",
	}
	paths := map[string]string{}
	for name, text := range files {
		paths[name] = filepath.Join(dir, name+".txt")
		require.NoError(t, os.WriteFile(paths[name], []byte(text), 0o644))
	}
	paths["notdir"] = filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(paths["notdir"], nil, 0o644))
	paths["garbage-results"] = filepath.Join(dir, "garbage")
	require.NoError(t, os.MkdirAll(paths["garbage-results"], 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(paths["garbage-results"], "results.jsonl"), []byte("\x00\x01 not json\n{]\n"), 0o644))
	return paths
}

// TestHostileInput: no input in the table crashes, hangs or is accepted
// silently. Each gets its exit status (2 for bad input, 4 for a stream
// that cannot be written) and one line that names it.
func TestHostileInput(t *testing.T) {
	dir := t.TempDir()
	f := hostileFiles(t, dir)
	notDir := f["notdir"]
	runArgs := func(extra ...string) []string {
		return append([]string{"run", "--scenario", "etcd-chaos"}, extra...)
	}
	sched := func(name string) []string { return runArgs("--schedule", f[name]) }
	cases := []hostileCase{
		// Commands and flags.
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run"}, 2, "--scenario is required"},
		{[]string{"run", "--scenario", "nope"}, 2, `unknown scenario "nope"`},
		{[]string{"run", "--scenario", "etcd-chaos; touch pwned #"}, 2, `unknown scenario "etcd-chaos; touch pwned #"`},
		{runArgs("extra"), 2, `unexpected argument "extra"`},
		{runArgs("--bogus"), 2, "flag provided but not defined: -bogus"},
		{[]string{"scenarios", "x"}, 2, "takes no arguments"},
		{[]string{"ablations", "x"}, 2, "takes no arguments"},
		// Numbers.
		{runArgs("--members", "9"), 2, "--members must be between 1 and 7, got 9"},
		{runArgs("--members", "0"), 2, "--members must be between 1 and 7, got 0"},
		{runArgs("--members", "-1"), 2, "--members must be between 1 and 7, got -1"},
		{runArgs("--members", "x"), 2, `invalid value "x" for flag -members`},
		{runArgs("--members", "99999999999999999999"), 2, "invalid value"},
		{runArgs("--seed", "-1"), 2, `invalid value "-1" for flag -seed`},
		{runArgs("--seed", "18446744073709551616"), 2, "invalid value"},
		{runArgs("--duration", "0s"), 2, "--duration must be positive, e.g. 90s (leave it out for the scenario's own length), got 0s"},
		{runArgs("--duration", "-5s"), 2, "--duration must be positive"},
		{runArgs("--duration", "100000h"), 2, "--duration 100000h0m0s is over 720h0m0s of virtual time"},
		{runArgs("--duration", "5"), 2, `invalid value "5" for flag -duration`},
		{runArgs("--duration", "10s"), 2, "--duration must be longer than the 20s settle window of etcd-chaos"},
		// Scenarios, member counts, ablations.
		{[]string{"run", "--scenario", "etcd-replace-member", "--members", "1"}, 2, "etcd-replace-member supports 3 to 7 etcd members, not 1"},
		{[]string{"run", "--scenario", "etcd-replace-member", "--members", "2"}, 2, "etcd-replace-member supports 3 to 7 etcd members, not 2"},
		{runArgs("--ablate", "nope"), 2, `unknown ablation "nope"`},
		{runArgs("--ablate", "apiserver-last-write-wins"), 2, "--ablate apiserver-last-write-wins removes a mechanism of the api layer, which etcd-chaos"},
		{runArgs("--ablate", "kubelet-no-prestop"), 2, "removes a mechanism of the stack layer"},
		{[]string{"run", "--scenario", "api-chaos", "--ablate", "kube-proxy-ignores-readiness"}, 2, "which api-chaos (a scenario of the api layer) does not build"},
		// Outputs.
		{runArgs("--trace", "-", "--timeline", "-"), 2, "--trace - and --timeline - would both write to standard output"},
		{runArgs("--timeline-filter", "kind=fault"), 2, "--timeline-filter filters the timeline: add --timeline FILE"},
		{runArgs("--timeline", "-", "--timeline-filter", "role=leader"), 2, `--timeline-filter "role=leader": want kind=PATTERNS or host=PATTERNS`},
		{runArgs("--timeline", "-", "--timeline-filter", "kind=raft.*,"), 2, `bad pattern ""`},
		{runArgs("--timeline", "-", "--timeline-filter", "host=etcd-9"), 2, `host pattern "etcd-9" matches no host of this run`},
		{runArgs("--artifacts", filepath.Join(notDir, "x")), 2, "--artifacts " + filepath.Join(notDir, "x") + ": cannot write there"},
		{runArgs("--timeline", filepath.Join(notDir, "x")), 2, "--timeline: open " + filepath.Join(notDir, "x") + ": not a directory"},
		{runArgs("--save-failures", filepath.Join(notDir, "x")), 2, "--save-failures " + filepath.Join(notDir, "x") + ": cannot write there"},
		{runArgs("--trace", "/dev/full"), 4, "no space left on device"},
		// Schedules.
		{runArgs("--schedule", filepath.Join(dir, "missing.txt")), 2, "no such file"},
		{runArgs("--schedule", "/dev/zero"), 2, "/dev/zero is larger than 8 MiB"},
		{runArgs("--schedule", dir), 2, "is a directory"},
		{sched("empty"), 2, "is empty: write one fault per line"},
		{sched("blank"), 2, "is empty: write one fault per line"},
		{sched("bad-for"), 2, `bad-for.txt:1: field "for": invalid duration "soon"`},
		{sched("unknown-target"), 2, `unknown-target.txt:1: crash at 10s: unknown fault target "etcd-9"`},
		{sched("for-zero"), 2, `field "for": "for 0s" lasts no time`},
		{sched("for-twice"), 2, `"for" is given twice`},
		{sched("param-twice"), 2, `field "loss": loss is given twice`},
		{sched("loss-nan"), 2, "probability NaN outside [0,1]"},
		{sched("loss-big"), 2, "probability 1.5 outside [0,1]"},
		{sched("delay-huge"), 2, "delay=1h0m0s is longer than 10s"},
		{sched("fsync-huge"), 2, "fsync=1000h0m0s is longer than 10s"},
		{sched("jump-huge"), 2, "steps the clock by more than 24h0m0s"},
		{sched("drift-huge"), 2, "rate 1000 outside [0.01, 100]"},
		{sched("leader-in-etcd"), 2, "partition puts etcd-leader on both sides whenever it names a host"},
		{sched("same-sides"), 2, "partition puts etcd-1 on both sides"},
		{sched("after-end"), 2, "so this fault would never happen"},
		{sched("unknown-kind"), 2, `unknown fault "explode"`},
		{sched("binary"), 2, `binary.txt:1: field "kind": want "<at> <kind>`},
		{sched("instant-for"), 2, `restart-process acts at once: drop "for 5s"`},
		{sched("no-kind"), 2, `field "kind"`},
		{sched("trigger-colon"), 2, `trigger-colon.txt:1: field "on": a trigger ends with a colon before its fault`},
		{sched("trigger-times"), 2, `trigger-times.txt:1: field "times": invalid count "0"`},
		{sched("trigger-until"), 2, `trigger-until.txt:1: field "until": until 5s is not after the trigger is armed (10s)`},
		{sched("trigger-host"), 2, `trigger-host.txt:1: crash at 0s: trigger: unknown fault target "etcd-9"`},
		{sched("trigger-after"), 2, "so this fault would never happen"},
		// Fault profiles.
		{runArgs("--faults", "nope"), 2, `unknown fault profile "nope"`},
		{runArgs("--faults", "crash-restart:mttf=1ns"), 2, `mttf="1ns" is not a duration from 1s to 720h0m0s`},
		{runArgs("--faults", "partitions:rate=NaN"), 2, `rate="NaN" is not a number of faults per minute from 0 to 60`},
		{runArgs("--faults", "partitions:rate=1e300"), 2, `rate="1e300" is not a number of faults per minute`},
		{runArgs("--faults", "flaky-network:loss=NaN"), 2, `loss="NaN" is not a probability in [0,1]`},
		{runArgs("--faults", "crash-restart:colour=red"), 2, `bad parameter "colour=red"`},
		{runArgs("--faults", "crash-restart", "--schedule", f["for-zero"]), 2, "give --faults or --schedule, not both"},
		// Sweeps.
		{[]string{"sweep", "--duration", "0s"}, 2, "--duration must be positive, got 0s"},
		{[]string{"sweep", "--duration", "100000h"}, 2, "sweep: --duration 100000h0m0s is over 720h0m0s"},
		{[]string{"sweep", "--seeds", "1", "--out", filepath.Join(notDir, "x")}, 2, "sweep: --out " + filepath.Join(notDir, "x") + ": cannot write there"},
		{[]string{"sweep", "--members", "3,3"}, 2, `--members "3,3" names 3 twice`},
		{[]string{"sweep", "--members", "3,x"}, 2, `--members "3,x": want a comma-separated list`},
		{[]string{"sweep", "--members", ""}, 2, `--members "": want a comma-separated list`},
		{[]string{"sweep", "--members", "3,8"}, 2, "between 1 and 7"},
		{[]string{"sweep", "--seeds", "0"}, 2, "--seeds must be at least 1, got 0"},
		{[]string{"sweep", "--seeds", "-5"}, 2, "--seeds must be at least 1, got -5"},
		{[]string{"sweep", "--seed-base", "18446744073709551615", "--seeds", "2"}, 2, "runs past the largest seed"},
		{[]string{"sweep", "--scenario", "etcd-replace-member", "--members", "3,2"}, 2, "etcd-replace-member supports 3 to 7 etcd members, not 2"},
		{[]string{"sweep", "--shard", "3/2"}, 2, `--shard "3/2": want i/n with 0 <= i < n`},
		{[]string{"sweep", "--parallel", "-1"}, 2, "--parallel must not be negative, got -1"},
		{[]string{"sweep", "--faults", "crash-restart:mttf=1ns"}, 2, `mttf="1ns" is not a duration`},
		{[]string{"sweep", "--ablate", "apiserver-last-write-wins"}, 2, "removes a mechanism of the api layer, which etcd-profile"},
		{[]string{"sweep", "--scenario", "nope"}, 2, `unknown scenario "nope"`},
		// Reports.
		{[]string{"report"}, 2, "report: no results directory given"},
		{[]string{"report", filepath.Join(dir, "missing")}, 2, "missing"},
		{[]string{"report", "--bogus", dir}, 2, "flag provided but not defined: -bogus"},
		{[]string{"report", f["garbage-results"]}, 2, "no results in"},
	}
	require.GreaterOrEqual(t, len(cases), 60)
	for _, c := range cases {
		code, _, stderr := run(c.args...)
		assert.Equal(t, c.code, code, "%q: %s", c.args, stderr)
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		// A report may warn about what it skipped before its one error.
		last := lines[len(lines)-1]
		assert.Contains(t, last, c.want, "%q", c.args)
		assert.True(t, strings.HasPrefix(last, "kubesim: "), "%q: %q", c.args, last)
		if c.args[0] != "report" {
			assert.Len(t, lines, 1, "one line for %q: %q", c.args, stderr)
		}
	}
}
