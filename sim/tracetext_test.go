package sim

import (
	"hash/fnv"
	"strconv"
	"strings"
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

// TestAppendQuotedCut checks that a value up to max prints whole, quoted,
// and a longer one as its first max bytes, its length and its FNV-1a hash.
func TestAppendQuotedCut(t *testing.T) {
	short := strings.Repeat("v", 8)
	if got, want := string(AppendQuotedCut(nil, short, 8)), strconv.Quote(short); got != want {
		t.Errorf("AppendQuotedCut(%q, 8) = %s, want %s", short, got, want)
	}
	long := "abcdefgh\"ij"
	h := fnv.New64a()
	h.Write([]byte(long))
	want := `p"abcdefgh"...(11 bytes fnv=` + strconv.FormatUint(h.Sum64(), 16) + ")"
	if got := string(AppendQuotedCut([]byte("p"), long, 8)); got != want {
		t.Errorf("AppendQuotedCut(%q, 8) = %s, want %s", long, got, want)
	}
}
