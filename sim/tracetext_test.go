package sim

import (
	"strconv"
	"testing"
)

// TestAppendQuoted checks the fast path against strconv.AppendQuote.
func TestAppendQuoted(t *testing.T) {
	for _, s := range []string{"", "k0", "client-1-1", "a b", "\"", "\\", "\x00", "\x1f", "\x7f", "é", "\xff", "tab\there", "~"} {
		if got, want := string(AppendQuoted(nil, s)), strconv.Quote(s); got != want {
			t.Errorf("AppendQuoted(%q) = %s, want %s", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		s := "x" + string([]byte{byte(c)}) + "y"
		if got, want := string(AppendQuoted([]byte("p"), s)), "p"+strconv.Quote(s); got != want {
			t.Errorf("AppendQuoted(%q) = %s, want %s", s, got, want)
		}
	}
}
