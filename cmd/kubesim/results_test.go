package main

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportBinaryFile: `kubesim report` on a 50 MB binary file prints one
// warning line and one error line, with status 2, not a line per bad line.
func TestReportBinaryFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	dir := t.TempDir()
	data := make([]byte, 50<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	bin := filepath.Join(dir, "results.jsonl")
	require.NoError(t, os.WriteFile(bin, data, 0o644))
	code, _, stderr := run("report", "--out", t.TempDir(), dir)
	assert.Equal(t, 2, code)
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	require.Len(t, lines, 2, "one warning and one error")
	assert.Contains(t, lines[0], "kubesim: warning: "+bin+": skipped ")
	assert.Contains(t, lines[1], "kubesim: report: no results in")
}
