package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sweep"
)

// TestPanicIsAnInternalError: a panic anywhere below a command exits 3,
// not 2 (bad input) as Go's own crash would, with one line that says it is
// a bug and names the file and line of kubesim's code where it happened,
// then the stack.
func TestPanicIsAnInternalError(t *testing.T) {
	defer func(c func([]string, io.Writer, io.Writer) error) { commands = c }(commands)
	commands = func([]string, io.Writer, io.Writer) error {
		var s []int
		_ = s[3] // index out of range, as a bug would
		return nil
	}
	var out, errb bytes.Buffer
	code := realMain([]string{"run"}, &out, &errb)
	require.Equal(t, exitInternal, code)
	first, rest, _ := strings.Cut(errb.String(), "\n")
	assert.Contains(t, first, "kubesim: internal error (a bug in kubesim")
	assert.Contains(t, first, "panic: runtime error: index out of range [3] with length 0")
	assert.Regexp(t, `at /.*/cmd/kubesim/exit_test\.go:\d+$`, first)
	assert.Contains(t, rest, "goroutine ")
}

// TestExitStatuses: each kind of outcome has its own status.
func TestExitStatuses(t *testing.T) {
	_, statErr := os.Stat("/nonexistent/kubesim")
	cases := []struct {
		err  error
		code int
		line string
	}{
		{nil, exitOK, ""},
		{errChecksFailed, exitChecksFailed, ""},
		{usagef("run: --members must be between 1 and 7, got 9"), exitBadInput, "kubesim: run: --members must be between 1 and 7, got 9"},
		{fmt.Errorf("writing results: %w", statErr), exitIO, "kubesim: writing results: stat /nonexistent/kubesim: no such file or directory"},
		{interruptedError{"sweep interrupted: 3 of 9 runs done; run the same command again to resume"}, exitInterrupted, "kubesim: sweep interrupted"},
		{errors.New("a run ended in an impossible state"), exitInternal, "kubesim: internal error (a bug in kubesim"},
	}
	seen := map[int]bool{}
	for _, c := range cases {
		var errb bytes.Buffer
		code := exitStatus(c.err, &errb)
		assert.Equal(t, c.code, code, "%v", c.err)
		if c.line == "" {
			assert.Empty(t, errb.String())
		} else {
			assert.True(t, strings.HasPrefix(errb.String(), c.line), "%q", errb.String())
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"))
		}
		assert.False(t, seen[code], "status %d means two things", code)
		seen[code] = true
	}
}

// TestSweepPanicIsAnInternalError: a run that panics in a sweep's
// worker is reported as a panic of the command is: status 3, one line
// naming the run, the panic and its place, then the stack.
func TestSweepPanicIsAnInternalError(t *testing.T) {
	pe := func() (pe *sweep.PanicError) {
		defer func() { pe = &sweep.PanicError{Value: recover(), Stack: debug.Stack()} }()
		var m map[string]int
		m["x"] = 1 // assignment to a nil map, as a bug would
		return nil
	}()
	var errb bytes.Buffer
	code := exitStatus(fmt.Errorf("etcd-chaos/m3/s7: %w", pe), &errb)
	require.Equal(t, exitInternal, code)
	first, rest, _ := strings.Cut(errb.String(), "\n")
	assert.Contains(t, first, "kubesim: internal error (a bug in kubesim")
	assert.Contains(t, first, "etcd-chaos/m3/s7: panic: assignment to entry in nil map")
	assert.Regexp(t, `at /.*/cmd/kubesim/exit_test\.go:\d+$`, first)
	assert.Contains(t, rest, "goroutine ")
}

// TestShellQuote: a quoted word is read back by a shell as exactly the
// word, whatever it holds, and a plain name is left alone.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"etcd-chaos":                "etcd-chaos",
		"crash-restart:mttf=1m0s":   "crash-restart:mttf=1m0s",
		"/tmp/my schedule.txt":      "'/tmp/my schedule.txt'",
		"etcd-chaos; touch pwned #": "'etcd-chaos; touch pwned #'",
		"it's":                      `'it'\''s'`,
		"":                          "''",
		"$(reboot)":                 "'$(reboot)'",
	} {
		assert.Equal(t, want, scenarios.ShellQuote(in), in)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to read the words back")
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[ -~\t\n]{0,20}`).Draw(t, "word")
		out, err := exec.Command(sh, "-c", "printf %s "+scenarios.ShellQuote(s)).Output()
		require.NoError(t, err)
		require.Equal(t, s, string(out), "quoted as %s", scenarios.ShellQuote(s))
	})
}
