package checks

import (
	"github.com/anishathalye/porcupine"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// KVInput is the input of one operation in a KVModel history: the call as
// the client made it.
type KVInput struct {
	// Kind is get, put, delete, cas or txn (list and historical gets are
	// left to the historical-reads check).
	Kind etcdtrace.OpKind
	// Key is the key a get, put, delete or cas touches, or the start of a
	// get's range.
	Key string
	// End is a get's range end: empty for Key alone, "\x00" for every key
	// from Key on, else [Key, End).
	End string
	// Rev is the revision a historical get reads at (0: the current one).
	Rev int64
	// Value is what put and cas write.
	Value string
	// Expect is the value cas compares against, unless ExpectAbsent.
	Expect string
	// ExpectAbsent makes cas require that the key does not exist.
	ExpectAbsent bool
	// Compares and Ops are a txn's: if every compare holds the ops not
	// marked Else run, else those marked Else.
	Compares []etcdtrace.Compare
	Ops      []etcdtrace.TxnOp
}

// KVOutput is the output of one operation in a KVModel history: the answer
// the client received.
type KVOutput struct {
	// Found is, for a single-key get, whether the key existed.
	Found bool
	// Value is, for a single-key get, the value read.
	Value string
	// Version is, for a single-key get, the key's version as etcd reports
	// it: the number of puts since the key was created. Zero means not
	// recorded, and is then not checked (a present key's version is at
	// least 1). It makes a write that was applied twice visible even when
	// it wrote the same value.
	Version int64
	// ModRev and CreateRev are, for a single-key get, the key's mod and
	// create revisions; zero means not recorded.
	ModRev, CreateRev int64
	// Rev is the answer's header revision: a write's own revision, a
	// read's store revision; zero means not recorded.
	Rev int64
	// Succeeded is, for cas and txn, whether the compares held (and the
	// success branch ran); for delete, whether a key was deleted.
	Succeeded bool
	// KVs are what a range get or a txn's range operations read.
	KVs []etcdtrace.ReadKV
	// Unknown marks an operation whose outcome the client never learned
	// (timeout, lost connection). The model accepts any answer for it, and
	// a history gives it a return time of +infinity, so that it may take
	// effect at any point after its call, or (by being ordered last) never.
	Unknown bool
}

// KVModel is a porcupine model of etcd's KV store with linearizable gets
// (of a key or a range), puts, deletes, compare-and-swaps and multi-op
// txns, each at one revision (etcd's API guarantees: KV operations are
// strictly serializable and atomic,
// https://etcd.io/docs/v3.5/learning/api_guarantees/). Inputs are KVInput,
// outputs KVOutput.
//
// Operations on disjoint sets of keys commute, so a history is
// linearizable exactly when the sub-history of each connected component
// of keys (keys that some operation touches together: a txn's keys, a
// range's) is (Herlihy and Wing's locality): Partition and PartitionEvent
// split the history so, and Init and Step describe the keys of one
// component. A workload whose multi-key operations stay within small
// groups of keys keeps the components small.
//
// The state is each present key's value, version, and mod and create
// revisions, with a lower bound on the revision of the last write. A
// write's revision is its answer's header revision: above every earlier
// write's, the same for every key a txn writes. A read's header revision
// is at least the last write's; the revisions it reports must be the
// keys'. A write whose answer was lost has a revision the model knows only
// to be above the writes before it, until a read reports it.
//
// Purity contract: Step never mutates its arguments and has no side
// effects; a state is an immutable value that is replaced, never modified
// in place, so porcupine may replay and cache states freely.
//
// Semantics, for keys in state S:
//   - get: legal when Found, Value, Version and revisions match S (of the
//     key, or of every present key of the range, in key order); no change.
//   - put: always legal; sets the value and bumps the version (1 on
//     creation).
//   - delete: legal when Succeeded says whether the key existed; removes it.
//   - cas: the compare holds when ExpectAbsent ? absent : present with value
//     Expect; legal when Succeeded equals that; if it held, sets Value.
//   - txn: every compare (equality of value, version or mod revision) must
//     hold for Succeeded; the ops of the branch run in order, a range
//     seeing the writes before it.
//   - an Unknown output is legal for any operation, which takes its effect.
var KVModel = porcupine.Model{
	Partition:      partitionKVOps,
	PartitionEvent: partitionKVEvents,
	Init:           func() any { return emptyKVState },
	Step: func(state, input, output any) (bool, any) {
		in := input.(KVInput)
		if in.Kind == etcdtrace.OpList || in.Rev != 0 {
			return true, state // judged by historical-reads
		}
		return kvStep(state.(*kvState), in, output.(KVOutput))
	},
	Equal: func(a, b any) bool { return equalKVStates(a.(*kvState), b.(*kvState)) },
	Hash:  func(state any) uint64 { return hashKVState(state.(*kvState)) },
	DescribeOperation: func(input, output any) string {
		return describeKVOp(input.(KVInput), output.(KVOutput))
	},
	DescribeState: func(state any) string { return describeKVState(state.(*kvState)) },
}
