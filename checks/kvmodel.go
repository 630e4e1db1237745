package checks

import (
	"hash/fnv"
	"strconv"

	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/nodes/etcd/etcdtrace"
)

// KVInput is the input of one operation in a KVModel history: the call as
// the client made it.
type KVInput struct {
	// Kind is get, put, delete or cas.
	Kind etcdtrace.OpKind
	// Key is the single key the operation touches; the model partitions by it.
	Key string
	// Value is what put and cas write.
	Value string
	// Expect is the value cas compares against, unless ExpectAbsent.
	Expect string
	// ExpectAbsent makes cas require that the key does not exist.
	ExpectAbsent bool
}

// KVOutput is the output of one operation in a KVModel history: the answer
// the client received.
type KVOutput struct {
	// Found is, for get, whether the key existed.
	Found bool
	// Value is, for get, the value read.
	Value string
	// Version is, for get, the key's version as etcd reports it: the number
	// of writes since the key was created. Zero means not recorded, and is
	// then not checked (a present key's version is at least 1). It makes a
	// write that was applied twice visible even when it wrote the same value.
	Version int64
	// Succeeded is, for cas, whether the compare held (and the write
	// happened); for delete, whether a key was deleted.
	Succeeded bool
	// Unknown marks an operation whose outcome the client never learned
	// (timeout, lost connection). The model accepts any answer for it, and
	// a history gives it a return time of +infinity, so that it may take
	// effect at any point after its call, or (by being ordered last) never.
	Unknown bool
}

// kvState is the state of one key: absent, or present with a value and a
// version. It is a comparable value, so porcupine's default == equality
// works on it.
type kvState struct {
	present bool
	value   string
	version int64
}

// written is the state after a put or a successful cas of value: the
// version counts writes since the key was (re)created, as in etcd.
func (s kvState) written(value string) kvState {
	if !s.present {
		return kvState{present: true, value: value, version: 1}
	}
	return kvState{present: true, value: value, version: s.version + 1}
}

// KVModel is a porcupine model of an etcd-like key-value store with
// linearizable single-key get, put, delete and compare-and-swap (etcd's
// API guarantees: KV operations are strictly serializable,
// https://etcd.io/docs/v3.5/learning/api_guarantees/). Inputs are KVInput,
// outputs KVOutput.
//
// Because single-key operations on different keys commute, a history is
// linearizable exactly when each key's sub-history is (Herlihy and Wing's
// locality), so Partition and PartitionEvent split the history by key, and
// Init and Step describe the state of a single key.
//
// Purity contract: Step never mutates its arguments and has no side
// effects; the state is an immutable value (absent, or present with a
// value) that is returned, never modified in place. Step's answer depends
// only on its arguments, so porcupine may replay and cache states freely.
//
// Semantics, for a key in state S:
//   - get: legal when Found, Value and Version (when recorded) match S
//     (Value is ignored when absent); no change.
//   - put: always legal; sets the value and bumps the version (1 on
//     creation).
//   - delete: legal when Succeeded says whether the key existed; removes it.
//   - cas: the compare holds when ExpectAbsent ? absent : present with value
//     Expect; legal when Succeeded equals that; if it held, sets Value.
//   - an Unknown output is legal for any operation, which takes its effect.
var KVModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		return partitionOps(h, func(in any) string { return in.(KVInput).Key })
	},
	PartitionEvent: func(h []porcupine.Event) [][]porcupine.Event {
		return partitionEvents(h, func(in any) string { return in.(KVInput).Key })
	},
	Init: func() any { return kvState{} },
	Step: func(state, input, output any) (bool, any) {
		return kvStep(state.(kvState), input.(KVInput), output.(KVOutput))
	},
	Hash: func(state any) uint64 {
		s := state.(kvState)
		h := fnv.New64a()
		if s.present {
			h.Write([]byte{1})
			h.Write([]byte(s.value))
			h.Write([]byte(strconv.FormatInt(s.version, 10)))
		}
		return h.Sum64()
	},
	DescribeOperation: func(input, output any) string {
		return describeKVOp(input.(KVInput), output.(KVOutput))
	},
	DescribeState: func(state any) string {
		s := state.(kvState)
		if !s.present {
			return "<absent>"
		}
		return strconv.Quote(s.value) + " v" + strconv.FormatInt(s.version, 10)
	},
}

// kvStep is KVModel's step on one key.
func kvStep(s kvState, in KVInput, out KVOutput) (bool, kvState) {
	switch in.Kind {
	case etcdtrace.OpGet:
		if out.Unknown {
			return true, s
		}
		return out.Found == s.present && (!s.present || out.Value == s.value && (out.Version == 0 || out.Version == s.version)), s
	case etcdtrace.OpPut:
		return true, s.written(in.Value)
	case etcdtrace.OpDelete:
		return out.Unknown || out.Succeeded == s.present, kvState{}
	case etcdtrace.OpCAS:
		held := !s.present
		if !in.ExpectAbsent {
			held = s.present && s.value == in.Expect
		}
		next := s
		if held {
			next = s.written(in.Value)
		}
		return out.Unknown || out.Succeeded == held, next
	}
	return false, s
}

// describeKVOp renders an operation for porcupine's visualization, e.g.
// `put("k", "v")` or `get("k") -> "v"`.
func describeKVOp(in KVInput, out KVOutput) string {
	var b []byte
	b = append(b, in.Kind...)
	b = append(b, '(')
	b = strconv.AppendQuote(b, in.Key)
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
	switch {
	case out.Unknown:
		b = append(b, " -> ?"...)
	case in.Kind == etcdtrace.OpGet && out.Found:
		b = append(b, " -> "...)
		b = strconv.AppendQuote(b, out.Value)
		if out.Version != 0 {
			b = append(b, " v"...)
			b = strconv.AppendInt(b, out.Version, 10)
		}
	case in.Kind == etcdtrace.OpGet:
		b = append(b, " -> <absent>"...)
	case in.Kind == etcdtrace.OpCAS || in.Kind == etcdtrace.OpDelete:
		b = append(b, " -> "...)
		b = strconv.AppendBool(b, out.Succeeded)
	}
	return string(b)
}
