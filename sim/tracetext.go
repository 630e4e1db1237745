package sim

import "strconv"

// Text is the text of a trace event being appended, for Data.AppendText.
// An AppendText method that tracegen writes is one chain of calls, a field
// each, such as
//
//	return sim.Text(b).Str("client", e.Client).Uint("op", e.Op).StrOpt("rv", e.RV).Trimmed()
//
// which the compiler inlines into the appends a hand-written method would
// make: nothing allocates beyond growing the slice.
//
// An event prints each field as "key=value " (Str, Int, Uint, Hex, Bool;
// Flag prints "key "), and a slice of items as each item's text followed by
// a space (Items). An item, such as a Change in an etcd.apply event, prints
// each field as its literal prefix followed by its value, with nothing
// between fields (the Put methods). The Opt form of a method prints nothing
// for a zero value; its If form prints nothing unless its condition holds
// (its arguments are evaluated either way).
type Text []byte

// key appends "k=".
func (t Text) key(k string) Text { return append(append(t, k...), '=') }

// Str appends "k=v ".
func (t Text) Str(k, v string) Text { return append(append(t.key(k), v...), ' ') }

// Int appends "k=<decimal> ".
func (t Text) Int(k string, v int64) Text { return append(strconv.AppendInt(t.key(k), v, 10), ' ') }

// Uint appends "k=<decimal> ".
func (t Text) Uint(k string, v uint64) Text { return append(strconv.AppendUint(t.key(k), v, 10), ' ') }

// Hex appends "k=<hex> ".
func (t Text) Hex(k string, v uint64) Text { return append(strconv.AppendUint(t.key(k), v, 16), ' ') }

// Bool appends "k=true " or "k=false ".
func (t Text) Bool(k string, v bool) Text { return append(strconv.AppendBool(t.key(k), v), ' ') }

// Flag appends "k " when on.
func (t Text) Flag(k string, on bool) Text { return t.PutIf(on, k, " ") }

// Items appends item(t, i) followed by a space for each i below n: the
// items of an event's slice, item(t, i) appending the text of the ith.
func (t Text) Items(n int, item func(t Text, i int) Text) Text {
	for i := range n {
		t = append(item(t, i), ' ')
	}
	return t
}

// StrOpt is Str, or nothing when v is "".
func (t Text) StrOpt(k, v string) Text { return t.StrIf(v != "", k, v) }

// IntOpt is Int, or nothing when v is 0.
func (t Text) IntOpt(k string, v int64) Text { return t.IntIf(v != 0, k, v) }

// UintOpt is Uint, or nothing when v is 0.
func (t Text) UintOpt(k string, v uint64) Text { return t.UintIf(v != 0, k, v) }

// HexOpt is Hex, or nothing when v is 0.
func (t Text) HexOpt(k string, v uint64) Text { return t.HexIf(v != 0, k, v) }

// BoolOpt is Bool, or nothing when v is false.
func (t Text) BoolOpt(k string, v bool) Text { return t.BoolIf(v, k, v) }

// when is f(t, a, b) if c holds, else t: the If forms, which the compiler
// inlines into a branch around f's appends.
func when[A, B any](c bool, t Text, f func(Text, A, B) Text, a A, b B) Text {
	if c {
		t = f(t, a, b)
	}
	return t
}

// StrIf is Str if c holds.
func (t Text) StrIf(c bool, k, v string) Text { return when(c, t, Text.Str, k, v) }

// IntIf is Int if c holds.
func (t Text) IntIf(c bool, k string, v int64) Text { return when(c, t, Text.Int, k, v) }

// UintIf is Uint if c holds.
func (t Text) UintIf(c bool, k string, v uint64) Text { return when(c, t, Text.Uint, k, v) }

// HexIf is Hex if c holds.
func (t Text) HexIf(c bool, k string, v uint64) Text { return when(c, t, Text.Hex, k, v) }

// BoolIf is Bool if c holds.
func (t Text) BoolIf(c bool, k string, v bool) Text { return when(c, t, Text.Bool, k, v) }

// ItemsIf is Items if c holds.
func (t Text) ItemsIf(c bool, n int, item func(t Text, i int) Text) Text {
	return when(c, t, Text.Items, n, item)
}

// Put appends p then v.
func (t Text) Put(p, v string) Text { return append(append(t, p...), v...) }

// PutQuoted appends p then v Go-quoted (AppendQuoted).
func (t Text) PutQuoted(p, v string) Text { return AppendQuoted(append(t, p...), v) }

// PutQuotedCut appends p then v quoted and cut at max bytes (AppendQuotedCut).
func (t Text) PutQuotedCut(p, v string, max int) Text {
	return AppendQuotedCut(append(t, p...), v, max)
}

// PutInt appends p then v in decimal.
func (t Text) PutInt(p string, v int64) Text { return strconv.AppendInt(append(t, p...), v, 10) }

// PutUint appends p then v in decimal.
func (t Text) PutUint(p string, v uint64) Text { return strconv.AppendUint(append(t, p...), v, 10) }

// PutHex appends p then v in hexadecimal.
func (t Text) PutHex(p string, v uint64) Text { return strconv.AppendUint(append(t, p...), v, 16) }

// PutJoined appends p then the elements of v separated by commas.
func (t Text) PutJoined(p string, v []string) Text {
	t = append(t, p...)
	for i, s := range v {
		if i > 0 {
			t = append(t, ',')
		}
		t = append(t, s...)
	}
	return t
}

// PutFlag appends p when on.
func (t Text) PutFlag(p string, on bool) Text {
	if on {
		t = append(t, p...)
	}
	return t
}

// PutIf is Put if c holds.
func (t Text) PutIf(c bool, p, v string) Text { return when(c, t, Text.Put, p, v) }

// PutQuotedIf is PutQuoted if c holds.
func (t Text) PutQuotedIf(c bool, p, v string) Text { return when(c, t, Text.PutQuoted, p, v) }

// PutQuotedCutIf is PutQuotedCut if c holds.
func (t Text) PutQuotedCutIf(c bool, p, v string, max int) Text {
	if c {
		t = t.PutQuotedCut(p, v, max)
	}
	return t
}

// PutIntIf is PutInt if c holds.
func (t Text) PutIntIf(c bool, p string, v int64) Text { return when(c, t, Text.PutInt, p, v) }

// PutUintIf is PutUint if c holds.
func (t Text) PutUintIf(c bool, p string, v uint64) Text { return when(c, t, Text.PutUint, p, v) }

// PutHexIf is PutHex if c holds.
func (t Text) PutHexIf(c bool, p string, v uint64) Text { return when(c, t, Text.PutHex, p, v) }

// PutJoinedIf is PutJoined if c holds.
func (t Text) PutJoinedIf(c bool, p string, v []string) Text { return when(c, t, Text.PutJoined, p, v) }

// Trimmed drops the trailing spaces that fields leave.
func (t Text) Trimmed() Text {
	for len(t) > 0 && t[len(t)-1] == ' ' {
		t = t[:len(t)-1]
	}
	return t
}

// AppendQuoted is strconv.AppendQuote with a fast path for printable ASCII
// with nothing to escape, where both give the same bytes.
func AppendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// AppendQuotedCut is AppendQuoted for a value that may be long (an API
// object's JSON): past max bytes it appends the first max, quoted, then
// "...(<length> bytes fnv=<hex>)", the FNV-1a hash of the whole, so that a
// trace line stays short while the trace hash still covers every byte.
func AppendQuotedCut(b []byte, s string, max int) []byte {
	if len(s) <= max {
		return AppendQuoted(b, s)
	}
	b = AppendQuoted(b, s[:max])
	b = append(b, "...("...)
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, " bytes fnv="...)
	h := fnvOffset
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	b = strconv.AppendUint(b, h, 16)
	return append(b, ')')
}
