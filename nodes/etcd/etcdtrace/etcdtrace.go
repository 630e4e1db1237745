// Package etcdtrace defines the typed trace events that etcd members and
// their clients add to a world's trace. They are the contract between the
// simulated etcd (which emits them) and the checks and metrics (which read
// them): a check never looks inside a member, only at these events.
//
// Every type implements sim.Data. Its text form is what the trace hash
// covers, so it prints every field that matters for determinism. The trace
// tags of the fields define that form; zz_trace.go is generated from them.
package etcdtrace

//go:generate go run github.com/kubesim/kubesim/internal/cmd/tracegen

// RaftState is emitted by a member whenever its Raft term, role, leader or
// commit index changes, and once at every boot.
//
//trace:kind KindRaftState raft.state notrim
type RaftState struct {
	Member string `json:"member" trace:"member"`
	ID     uint64 `json:"id" trace:"-"`
	// Incarnation is the member host's boot count: commit indexes only
	// move forward within one incarnation.
	Incarnation uint64 `json:"incarnation" trace:"inc"`
	Term        uint64 `json:"term" trace:"term"`
	Role        string `json:"role" trace:"role"` // follower, pre-candidate, candidate or leader
	Lead        uint64 `json:"lead" trace:"lead"` // 0 when unknown
	Commit      uint64 `json:"commit" trace:"commit"`
	// LogHash hashes (index, term, data) of every log entry up to Commit.
	LogHash uint64 `json:"log_hash" trace:"loghash,hex"`
}

// The types of a Change.
const (
	ChangePut    = "put"
	ChangeDelete = "delete"
)

// Change is one key change at a revision, as etcd's mvcc records it. For a
// delete, Value is empty, CreateRev and Version are 0 and ModRev is the
// revision of the deletion. Its text form is `put "key"="value"@mod/create/version`.
//
//trace:item
type Change struct {
	Type      string `json:"type" trace:""` // ChangePut or ChangeDelete
	Key       string `json:"key" trace:" ,quote"`
	Value     string `json:"value,omitempty" trace:"=,quote,cut=MaxTextValue,if=Type==ChangePut"`
	ModRev    int64  `json:"mod_rev" trace:"@"`
	CreateRev int64  `json:"create_rev,omitempty" trace:"/"`
	Version   int64  `json:"version,omitempty" trace:"/"`
}

// MaxTextValue is how much of a value a Change's text form shows; a longer
// one (an API object's JSON) is cut there and followed by its length and
// FNV-1a hash, as in "...(1234 bytes fnv=9f3a...)", so that the trace hash
// still covers all of it. The JSONL trace carries it whole.
const MaxTextValue = 64

// Apply is emitted when a member applies a committed Raft entry to its
// store. Rev is the store revision after the entry; Changes are the key
// changes it made (none for a read-only or failed transaction, or a
// compaction). Compact is the revision a compaction entry compacted to.
//
//trace:kind KindApply etcd.apply
type Apply struct {
	Member    string   `json:"member" trace:"member"`
	Index     uint64   `json:"index" trace:"index"`
	Term      uint64   `json:"term" trace:"term"`
	EntryHash uint64   `json:"entry_hash" trace:"entry,hex"` // FNV-1a of the entry's data
	Rev       int64    `json:"rev" trace:"rev"`
	Compact   int64    `json:"compact,omitempty" trace:"compact,omitempty"`
	Changes   []Change `json:"changes,omitempty" trace:""`
}

// KVHash is a member's store fingerprint, emitted by every live member when
// a scenario asks for it (at the end of a run).
//
//trace:kind KindKVHash etcd.kvhash notrim
type KVHash struct {
	Member     string `json:"member" trace:"member"`
	Applied    uint64 `json:"applied" trace:"applied"`
	Rev        int64  `json:"rev" trace:"rev"`
	CompactRev int64  `json:"compact_rev" trace:"compact"`
	Hash       uint64 `json:"hash" trace:"hash,hex"`
}

// OpKind is the kind of a KV client operation.
type OpKind string

// The KV operations a client records.
const (
	OpGet    OpKind = "get"    // linearizable Range of one key
	OpPut    OpKind = "put"    // Put of a unique value
	OpCAS    OpKind = "cas"    // Txn: if value(key) == Expect then Put(Value); ExpectAbsent compares version == 0 instead
	OpDelete OpKind = "delete" // DeleteRange of one key
)

// Call is emitted when a client invokes an operation. Op identifies the
// call; its Return carries the same Client and Op.
//
//trace:kind KindCall kv.call
type Call struct {
	Client       string `json:"client" trace:"client"`
	Op           uint64 `json:"op" trace:"op"`
	Kind         OpKind `json:"kind" trace:"kind"`
	Key          string `json:"key" trace:"key"`
	Value        string `json:"value,omitempty" trace:"value,omitempty"`
	Expect       string `json:"expect,omitempty" trace:"expect,if=Kind==OpCAS,if=!ExpectAbsent"`
	ExpectAbsent bool   `json:"expect_absent,omitempty" trace:"expect=absent,flag,if=Kind==OpCAS"`
}

// Outcome says how a call ended.
type Outcome string

// The outcomes of a call.
const (
	// OutcomeOK: the server answered; the fields of Return hold its answer.
	OutcomeOK Outcome = "ok"
	// OutcomeFail: the server answered with an error that means the
	// operation did not happen (e.g. no leader, or a refused request).
	OutcomeFail Outcome = "fail"
	// OutcomeUnknown: no answer came (timeout, connection lost); the
	// operation may or may not have taken effect.
	OutcomeUnknown Outcome = "unknown"
)

// Return is emitted when a call ends.
//
//trace:kind KindReturn kv.return
type Return struct {
	Client    string  `json:"client" trace:"client"`
	Op        uint64  `json:"op" trace:"op"`
	Outcome   Outcome `json:"outcome" trace:"outcome"`
	Found     bool    `json:"found,omitempty" trace:"-"`                            // get: the key existed
	Value     string  `json:"value,omitempty" trace:"value,if=Found"`               // get: its value
	Version   int64   `json:"version,omitempty" trace:"version,if=Found,omitempty"` // get: its version (puts since creation); 0 when not recorded
	Succeeded bool    `json:"succeeded,omitempty" trace:"succeeded,flag"`           // cas: the compare held; delete: a key was deleted
	Rev       int64   `json:"rev,omitempty" trace:"rev,omitempty"`                  // header revision of the answer
	Member    string  `json:"member,omitempty" trace:"member,omitempty"`            // which member answered
	Err       string  `json:"err,omitempty" trace:"err,omitempty"`
}

// WatchOpen is emitted when a watcher asks a member for a watch on
// [Key, End) (End empty: the single key Key) starting at StartRev. Stream
// numbers the watcher's successive watches, so that responses can be told
// apart after a reconnect.
//
//trace:kind KindWatchOpen watch.open notrim
type WatchOpen struct {
	Watcher  string `json:"watcher" trace:"watcher"`
	Stream   uint64 `json:"stream" trace:"stream"`
	Member   string `json:"member" trace:"member"`
	Key      string `json:"key" trace:"key"`
	End      string `json:"end,omitempty" trace:"end"`
	StartRev int64  `json:"start_rev" trace:"start"`
}

// WatchResp is emitted when a watcher receives a watch response. A progress
// notification has no events and Progress set. A cancellation for a
// compacted start revision has Canceled and CompactRev set.
//
//trace:kind KindWatchResp watch.resp
type WatchResp struct {
	Watcher    string   `json:"watcher" trace:"watcher"`
	Stream     uint64   `json:"stream" trace:"stream"`
	Member     string   `json:"member" trace:"member"`
	Rev        int64    `json:"rev" trace:"rev"` // header revision
	Progress   bool     `json:"progress,omitempty" trace:"progress,flag"`
	Canceled   bool     `json:"canceled,omitempty" trace:"-"`
	CompactRev int64    `json:"compact_rev,omitempty" trace:"canceled-compact,if=Canceled"`
	Events     []Change `json:"events,omitempty" trace:""`
}
