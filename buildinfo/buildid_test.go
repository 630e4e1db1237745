package buildinfo

import (
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestName(t *testing.T) {
	hash := func() (string, error) { return "0123456789ab", nil }
	noExe := func() (string, error) { return "", errors.New("no executable") }
	cases := []struct {
		version string
		hash    func() (string, error)
		want    string
	}{
		{"v0.4.0", hash, "v0.4.0"},
		{"v0.0.0-20260101120000-abcdef123456", hash, "v0.0.0-20260101120000-abcdef123456"},
		{"v0.4.1-0.20260101120000-abcdef123456+dirty", hash, "devel-0123456789ab"},
		{"(devel)", hash, "devel-0123456789ab"},
		{"", hash, "devel-0123456789ab"},
		{"(devel)", noExe, "devel"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, name(c.version, c.hash), c.version)
	}
}

// TestString: a test binary is a development build, named by its hash, and
// the name does not change within a process.
func TestString(t *testing.T) {
	require.Regexp(t, regexp.MustCompile(`^devel-[0-9a-f]{12}$`), String())
	require.Equal(t, String(), String())
}
