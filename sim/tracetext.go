package sim

import "strconv"

// Helpers for Data.AppendText: one "key=value " field at a time, so that
// every trace event prints the same way. They allocate nothing beyond
// growing b.

// AppendField appends "k=v ".
func AppendField(b []byte, k, v string) []byte {
	b = append(b, k...)
	b = append(b, '=')
	b = append(b, v...)
	return append(b, ' ')
}

// AppendFieldOpt appends "k=v " unless v is empty.
func AppendFieldOpt(b []byte, k, v string) []byte {
	if v == "" {
		return b
	}
	return AppendField(b, k, v)
}

// AppendUintField appends "k=<decimal> ".
func AppendUintField(b []byte, k string, v uint64) []byte {
	b = append(b, k...)
	b = append(b, '=')
	b = strconv.AppendUint(b, v, 10)
	return append(b, ' ')
}

// AppendIntField appends "k=<decimal> ".
func AppendIntField(b []byte, k string, v int64) []byte {
	b = append(b, k...)
	b = append(b, '=')
	b = strconv.AppendInt(b, v, 10)
	return append(b, ' ')
}

// AppendHexField appends "k=<hex> ".
func AppendHexField(b []byte, k string, v uint64) []byte {
	b = append(b, k...)
	b = append(b, '=')
	b = strconv.AppendUint(b, v, 16)
	return append(b, ' ')
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

// TrimSpaceRight drops the trailing spaces the field helpers leave.
func TrimSpaceRight(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// AppendBoolField appends "k=true " or "k=false ".
func AppendBoolField(b []byte, k string, v bool) []byte {
	b = append(b, k...)
	b = append(b, '=')
	b = strconv.AppendBool(b, v)
	return append(b, ' ')
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
