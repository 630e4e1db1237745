package scenarios_test

import (
	"bufio"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios"
)

// TestReadLine: a line longer than the limit comes back cut, longer than
// the limit, and the reader moves past it to the next line.
func TestReadLine(t *testing.T) {
	const limit = 8
	r := bufio.NewReaderSize(strings.NewReader("short\n1234567\n123456789012\nlast"), 16)
	cases := []struct {
		line     string
		complete bool
		tooLong  bool
	}{{"short", true, false}, {"1234567", true, false}, {"", true, true}, {"last", false, false}}
	for _, c := range cases {
		line, complete, _ := scenarios.ReadLine(r, nil, limit)
		require.Equal(t, c.complete, complete, c.line)
		require.Equal(t, c.tooLong, len(line) > limit, c.line)
		if !c.tooLong {
			require.Equal(t, c.line, string(line))
		}
	}
}
