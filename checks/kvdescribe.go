package checks

import (
	"strconv"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// describeKVOp renders an operation for porcupine's visualization and the
// check's offenses, e.g. `put("k", "v") @12`, `get("k") -> "v" v2 @12` or
// `txn(if "k0".mod=3 then put "k1"="v" else range "k0") -> true @12`.
func describeKVOp(in KVInput, out KVOutput) string {
	var b []byte
	b = append(b, in.Kind...)
	b = append(b, '(')
	switch in.Kind {
	case etcdtrace.OpTxn:
		b = appendTxnText(b, in)
	default:
		b = strconv.AppendQuote(b, in.Key)
		if in.End != "" {
			b = append(b, ".."...)
			b = strconv.AppendQuote(b, in.End)
		}
	}
	switch in.Kind {
	case etcdtrace.OpPut:
		b = append(b, ", "...)
		b = strconv.AppendQuote(b, in.Value)
	case etcdtrace.OpCAS:
		b = append(b, ", "...)
		if in.ExpectAbsent {
			b = append(b, "<absent>"...)
		} else {
			b = strconv.AppendQuote(b, in.Expect)
		}
		b = append(b, " -> "...)
		b = strconv.AppendQuote(b, in.Value)
	}
	b = append(b, ')')
	if out.Unknown {
		return string(append(b, " -> ?"...))
	}
	switch {
	case in.Kind == etcdtrace.OpGet && in.End != "":
		b = append(b, " -> "...)
		b = appendKVs(b, out.KVs)
	case in.Kind == etcdtrace.OpGet && out.Found:
		b = append(b, " -> "...)
		b = strconv.AppendQuote(b, out.Value)
		if out.Version != 0 {
			b = append(b, " v"...)
			b = strconv.AppendInt(b, out.Version, 10)
		}
		if out.ModRev != 0 {
			b = append(b, " @"...)
			b = strconv.AppendInt(b, out.ModRev, 10)
		}
	case in.Kind == etcdtrace.OpGet:
		b = append(b, " -> <absent>"...)
	case in.Kind == etcdtrace.OpCAS || in.Kind == etcdtrace.OpDelete:
		b = append(b, " -> "...)
		b = strconv.AppendBool(b, out.Succeeded)
	case in.Kind == etcdtrace.OpTxn:
		b = append(b, " -> "...)
		b = strconv.AppendBool(b, out.Succeeded)
		if len(out.KVs) > 0 {
			b = append(b, ' ')
			b = appendKVs(b, out.KVs)
		}
	}
	if out.Rev != 0 {
		b = append(b, " rev="...)
		b = strconv.AppendInt(b, out.Rev, 10)
	}
	return string(b)
}

// appendTxnText renders a txn's compares and branches.
func appendTxnText(b []byte, in KVInput) []byte {
	for i := range in.Compares {
		b = in.Compares[i].AppendText(b)
		b = append(b, ' ')
	}
	b = append(b, "then"...)
	for _, els := range []bool{false, true} {
		if els {
			b = append(b, " else"...)
		}
		for i := range in.Ops {
			if in.Ops[i].Else == els {
				op := in.Ops[i]
				op.Else = false
				b = append(b, ' ')
				b = op.AppendText(b)
			}
		}
	}
	return b
}

// appendKVs renders what a read returned, as `["k"="v"@12/3/2 ...]`.
func appendKVs(b []byte, kvs []etcdtrace.ReadKV) []byte {
	b = append(b, '[')
	for i := range kvs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = kvs[i].AppendText(b)
	}
	return append(b, ']')
}
