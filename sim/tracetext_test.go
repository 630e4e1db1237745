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
	want := `p"abcdefgh"...(11 bytes fnv=` + strconv.FormatUint(fnvString(long), 16) + ")"
	if got := string(AppendQuotedCut([]byte("p"), long, 8)); got != want {
		t.Errorf("AppendQuotedCut(%q, 8) = %s, want %s", long, got, want)
	}
}

// TestText checks every Text method, the Opt and If forms both printing
// and not, and that the chain appends to what b holds.
func TestText(t *testing.T) {
	item := func(t Text, i int) Text { return t.PutInt("#", int64(i)) }
	for _, c := range []struct{ got, want Text }{
		{Text("> ").Str("s", "v").Int("i", -1).Uint("u", 2).Hex("h", 255).Bool("b", false).Flag("f", true).Flag("g", false).Items(2, item),
			Text("> s=v i=-1 u=2 h=ff b=false f #0 #1 ")},
		{Text("> ").StrOpt("s", "v").IntOpt("i", 1).UintOpt("u", 1).HexOpt("h", 1).BoolOpt("b", true).StrOpt("s", "").IntOpt("i", 0).UintOpt("u", 0).HexOpt("h", 0).BoolOpt("b", false),
			Text("> s=v i=1 u=1 h=1 b=true ")},
		{Text("> ").StrIf(true, "s", "").IntIf(true, "i", 0).UintIf(true, "u", 0).HexIf(true, "h", 0).BoolIf(true, "b", false).ItemsIf(true, 1, item).Trimmed(),
			Text("> s= i=0 u=0 h=0 b=false #0")},
		{Text("> ").StrIf(false, "s", "v").IntIf(false, "i", 1).UintIf(false, "u", 1).HexIf(false, "h", 1).BoolIf(false, "b", true).ItemsIf(false, 1, item).Trimmed(),
			Text(">")},
		{Text("> ").Put("", "a").PutQuoted(" ", "k\n").PutQuotedCut("=", "vvv", 2).PutInt("@", -3).PutUint("/", 4).PutHex("/", 10).PutJoined("/", []string{"x", "y"}).PutFlag("/f", true).PutFlag("/g", false),
			Text(`> a "k\n"="vv"...(3 bytes fnv=` + strconv.FormatUint(fnvString("vvv"), 16) + `)@-3/4/a/x,y/f`)},
		{Text("> ").PutIf(true, "p", "").PutQuotedIf(true, "q", "").PutQuotedCutIf(true, "c", "", 1).PutIntIf(true, "i", 0).PutUintIf(true, "u", 0).PutHexIf(true, "h", 0).PutJoinedIf(true, "j", nil),
			Text(`> pq""c""i0u0h0j`)},
		{Text("> ").PutIf(false, "p", "v").PutQuotedIf(false, "q", "v").PutQuotedCutIf(false, "c", "v", 1).PutIntIf(false, "i", 1).PutUintIf(false, "u", 1).PutHexIf(false, "h", 1).PutJoinedIf(false, "j", []string{"x"}),
			Text("> ")},
	} {
		if string(c.got) != string(c.want) {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// fnvString is the FNV-1a hash of s.
func fnvString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
