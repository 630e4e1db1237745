package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// timelineLine is one timeline line: sequence number, time, host, kind.
var timelineLine = regexp.MustCompile(`^ *(\d+)  +(\d+\.\d{6}s)  +(\S+)  +(\S+)(  |$)`)

// failingRun is a run whose linearizability check fails (compare-and-swap
// writes lose updates with Txn compares ignored), with no faults.
func failingRun(t *testing.T) (args []string, opts scenarios.Options) {
	sched := filepath.Join(t.TempDir(), "none.txt")
	require.NoError(t, os.WriteFile(sched, []byte("# no faults\n"), 0o644))
	args = []string{"run", "--scenario", "etcd-flaky-network", "--members", "3", "--seed", "1", "--ablate", "mvcc-ignore-compare", "--schedule", sched}
	opts = scenarios.Options{Scenario: "etcd-flaky-network", Members: 3, Seed: 1, Ablations: []string{"mvcc-ignore-compare"}, Schedule: sim.Schedule{}}
	return args, opts
}

// TestRunArtifacts: run --artifacts DIR writes the trace, the timeline and
// porcupine's HTML of a failing run, byte for byte the files the go test
// path writes, and says where; the offenses' "(event N)" are the
// timeline's sequence numbers.
func TestRunArtifacts(t *testing.T) {
	args, opts := failingRun(t)
	dir := t.TempDir()
	code, stdout, stderr := run(append(args, "--artifacts", dir)...)
	require.Equal(t, 1, code, stderr)

	want, err := scenarios.WriteArtifacts(opts, t.TempDir())
	require.NoError(t, err)
	require.NotEmpty(t, want.Porcupine)

	wrote := regexp.MustCompile(`(?m)^wrote (.*)$`).FindAllStringSubmatch(stderr, -1)
	require.Len(t, wrote, len(want.Paths()), stderr)
	for i, w := range want.Paths() {
		got := wrote[i][1]
		assert.Equal(t, filepath.Join(dir, filepath.Base(w)), got)
		a, err := os.ReadFile(got)
		require.NoError(t, err)
		b, err := os.ReadFile(w)
		require.NoError(t, err)
		if strings.HasSuffix(w, ".html") {
			assert.Contains(t, string(a), "<html")
		} else {
			assert.True(t, bytes.Equal(a, b), "%s differs from the go test path's %s", got, w)
		}
	}

	timeline, err := os.ReadFile(wrote[1][1])
	require.NoError(t, err)
	offenses := regexp.MustCompile(`at (\d+\.\d{6}s) \(event (\d+)\)`).FindAllStringSubmatch(stdout, -1)
	require.NotEmpty(t, offenses, stdout)
	for _, o := range offenses {
		assert.Regexp(t, `(?m)^ *`+o[2]+`  +`+regexp.QuoteMeta(o[1])+`  `, string(timeline), "the timeline line of event %s", o[2])
	}
}

// TestRunArtifactsPassing: a passing run with --artifacts writes its trace
// and timeline, and no porcupine page.
func TestRunArtifactsPassing(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run("run", "--scenario", "etcd-leader-crash", "--seed", "3", "--duration", "40s", "--artifacts", dir)
	require.Equal(t, 0, code, stderr)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	base := filepath.Join(dir, "etcd-leader-crash-m3-s3-40s")
	assert.Equal(t, []string{base + ".timeline.txt", base + ".trace.jsonl"}, files)
	assert.Contains(t, stderr, "wrote "+base+".trace.jsonl\nwrote "+base+".timeline.txt\n")
}

// TestRunTimelineToStdout: --timeline - writes the timeline to standard
// output and the summary to standard error; filters keep only what they
// name.
func TestRunTimelineToStdout(t *testing.T) {
	// Seed 3 crashes etcd-2 at 20 s.
	base := []string{"run", "--scenario", "etcd-leader-crash", "--seed", "3", "--duration", "60s", "--timeline", "-"}
	lines := func(args ...string) [][]string {
		code, stdout, stderr := run(append(base, args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, "\nPASS\n", "the summary goes to standard error")
		var out [][]string
		for _, l := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
			m := timelineLine.FindStringSubmatch(l)
			require.NotNil(t, m, "a timeline line: %q", l)
			out = append(out, m)
		}
		return out
	}
	all := lines()
	kinds := map[string]int{}
	for _, m := range all {
		kinds[m[4]]++
	}
	require.Positive(t, kinds["send"])
	require.Positive(t, kinds["fault"])

	quiet := lines("--timeline-filter", "kind!=send,deliver,timer")
	assert.Len(t, quiet, len(all)-kinds["send"]-kinds["deliver"]-kinds["timer"])

	raft := lines("--timeline-filter", "kind=raft.*,fault", "--timeline-filter", "host=etcd-2")
	seen := map[string]bool{}
	for _, m := range raft {
		assert.Equal(t, "etcd-2", m[3])
		assert.True(t, strings.HasPrefix(m[4], "raft.") || m[4] == "fault", m[0])
		seen[m[4]] = true
	}
	assert.True(t, seen["fault"] && seen["raft.state"], "both kinds kept: %v", seen)
	node := lines("--timeline-filter", "kind=node", "--timeline-filter", "host!=etcd-*")
	for _, m := range node {
		assert.NotContains(t, []string{"send", "deliver", "drop", "refuse", "timer", "fault"}, m[4])
		assert.False(t, strings.HasPrefix(m[3], "etcd-"), m[0])
	}
	require.NotEmpty(t, node)
}

// TestRunTraceToStdout: --trace - writes the JSONL trace to standard
// output, one event per line from event 0 on, and nothing else.
func TestRunTraceToStdout(t *testing.T) {
	code, stdout, stderr := run("run", "--scenario", "etcd-leader-crash", "--seed", "3", "--duration", "40s", "--trace", "-", "--json")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	for i, l := range lines {
		var e struct{ Seq *int }
		require.NoError(t, json.Unmarshal([]byte(l), &e), l)
		require.NotNil(t, e.Seq, l)
		require.Equal(t, i, *e.Seq)
	}
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(stderr), &res), "the --json summary goes to standard error")
	assert.Equal(t, true, res["ok"])
}

// brokenPipe accepts n writes, then fails like a pipe whose reader left.
type brokenPipe struct{ n, writes int }

func (b *brokenPipe) Write(p []byte) (int, error) {
	b.writes++
	if b.writes > b.n {
		return 0, syscall.EPIPE
	}
	return len(p), nil
}

// TestRunClosedPipe: when the reader of --timeline - goes away, the run
// stops at once (the artifacts, flushed, end early), exits 0 and prints
// nothing; the dead pipe is not written again.
func TestRunClosedPipe(t *testing.T) {
	dir := t.TempDir()
	pipe := &brokenPipe{n: 1}
	var stderr bytes.Buffer
	code := realMain([]string{"run", "--scenario", "etcd-leader-crash", "--seed", "3", "--duration", "40s", "--timeline", "-", "--artifacts", dir}, pipe, &stderr)
	assert.Equal(t, 0, code)
	assert.Empty(t, stderr.String())
	assert.Equal(t, 2, pipe.writes, "one write that worked, one that found the pipe closed")
	timeline, err := os.ReadFile(filepath.Join(dir, "etcd-leader-crash-m3-s3-40s.timeline.txt"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(timeline), "\n"), "\n")
	last := timelineLine.FindStringSubmatch(lines[len(lines)-1])
	require.NotNil(t, last, lines[len(lines)-1])
	at, err := time.ParseDuration(last[2])
	require.NoError(t, err)
	assert.Less(t, at, 10*time.Second, "the run stopped when the pipe closed, long before its 40 s")
}

// TestBinaryClosedPipe: the built command, its standard output a pipe that
// the reader closes after one line (kubesim run --timeline - | head -1),
// ends quietly with status 0, where Go would otherwise die of SIGPIPE.
func TestBinaryClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "kubesim")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd := exec.Command(bin, "run", "--scenario", "etcd-leader-crash", "--timeline", "-")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	require.NoError(t, cmd.Start())
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	assert.Regexp(t, timelineLine, line)
	r.Close()
	err = cmd.Wait()
	assert.NoError(t, err, "exit status 0, not killed by SIGPIPE")
	assert.Empty(t, stderr.String())
}

// TestRunStackOmitsWorkloadMetrics: a full-stack run has no etcd KV
// workload, so it reports no write or read metrics rather than zeros.
func TestRunStackOmitsWorkloadMetrics(t *testing.T) {
	code, stdout, stderr := run("run", "--scenario", "stack-chaos", "--json")
	require.Equal(t, 0, code, stderr)
	var res struct{ Metrics map[string]float64 }
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	for _, k := range []string{"quorum_up_fraction", "leader_elections", "converge_s"} {
		assert.Contains(t, res.Metrics, k)
	}
	for _, k := range []string{"write_availability", "read_availability", "writes_attempted", "write_latency_p50_ms", "recovery_mean_s", "faults_unrecovered"} {
		assert.NotContains(t, res.Metrics, k)
	}
	code, stdout, _ = run("run", "--scenario", "stack-chaos")
	require.Equal(t, 0, code)
	assert.NotContains(t, stdout, "availability")
}

// TestRunArtifactsAPI: a run whose API server history is not linearizable
// gets porcupine's page of that history too.
func TestRunArtifactsAPI(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := run("run", "--scenario", "api-conflict-storm", "--seed", "1", "--ablate", "apiserver-last-write-wins", "--artifacts", dir)
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, `api-linearizability +FAIL`, stdout)
	page := filepath.Join(dir, "api-conflict-storm-m3-s1-apiserver-last-write-wins.api-linearizability.porcupine.html")
	assert.Contains(t, stderr, "wrote "+page+"\n")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<html")
}
