// Package etcdtrace defines the typed trace events that etcd members and
// their clients add to a world's trace. They are the contract between the
// simulated etcd (which emits them) and the checks and metrics (which read
// them): a check never looks inside a member, only at these events.
//
// Every type implements sim.Data. Its text form is what the trace hash
// covers, so it prints every field that matters for determinism.
package etcdtrace

import (
	"strconv"

	"github.com/kubesim/kubesim/sim"
)

// The trace kinds, as returned by TraceKind.
const (
	KindRaftState = "raft.state"
	KindApply     = "etcd.apply"
	KindKVHash    = "etcd.kvhash"
	KindCall      = "kv.call"
	KindReturn    = "kv.return"
	KindWatchOpen = "watch.open"
	KindWatchResp = "watch.resp"
)

// RaftState is emitted by a member whenever its Raft term, role, leader or
// commit index changes, and once at every boot.
type RaftState struct {
	Member string `json:"member"`
	ID     uint64 `json:"id"`
	// Incarnation is the member host's boot count: commit indexes only
	// move forward within one incarnation.
	Incarnation uint64 `json:"incarnation"`
	Term        uint64 `json:"term"`
	Role        string `json:"role"` // follower, pre-candidate, candidate or leader
	Lead        uint64 `json:"lead"` // 0 when unknown
	Commit      uint64 `json:"commit"`
	// LogHash hashes (index, term, data) of every log entry up to Commit.
	LogHash uint64 `json:"log_hash"`
}

// TraceKind implements sim.Data.
func (e *RaftState) TraceKind() string { return KindRaftState }

// AppendText implements sim.Data.
func (e *RaftState) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "member", e.Member)
	b = sim.AppendUintField(b, "inc", e.Incarnation)
	b = sim.AppendUintField(b, "term", e.Term)
	b = sim.AppendField(b, "role", e.Role)
	b = sim.AppendUintField(b, "lead", e.Lead)
	b = sim.AppendUintField(b, "commit", e.Commit)
	return sim.AppendHexField(b, "loghash", e.LogHash)
}

// Change is one key change at a revision, as etcd's mvcc records it. For a
// delete, Value is empty, CreateRev and Version are 0 and ModRev is the
// revision of the deletion.
type Change struct {
	Type      string `json:"type"` // put or delete
	Key       string `json:"key"`
	Value     string `json:"value,omitempty"`
	CreateRev int64  `json:"create_rev,omitempty"`
	ModRev    int64  `json:"mod_rev"`
	Version   int64  `json:"version,omitempty"`
}

// MaxTextValue is how much of a value a Change's text form shows; a longer
// one (an API object's JSON) is cut there and followed by its length and
// FNV-1a hash, as in "...(1234 bytes fnv=9f3a...)", so that the trace hash
// still covers all of it. The JSONL trace carries it whole.
const MaxTextValue = 64

// AppendText appends the change's one-line form.
func (c *Change) AppendText(b []byte) []byte {
	b = append(b, c.Type...)
	b = append(b, ' ')
	b = sim.AppendQuoted(b, c.Key)
	if c.Type == "put" {
		b = append(b, '=')
		if len(c.Value) <= MaxTextValue {
			b = sim.AppendQuoted(b, c.Value)
		} else {
			b = sim.AppendQuoted(b, c.Value[:MaxTextValue])
			b = append(b, "...("...)
			b = strconv.AppendInt(b, int64(len(c.Value)), 10)
			b = append(b, " bytes fnv="...)
			b = strconv.AppendUint(b, fnv64a(c.Value), 16)
			b = append(b, ')')
		}
	}
	b = append(b, '@')
	b = strconv.AppendInt(b, c.ModRev, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, c.CreateRev, 10)
	b = append(b, '/')
	return strconv.AppendInt(b, c.Version, 10)
}

// Apply is emitted when a member applies a committed Raft entry to its
// store. Rev is the store revision after the entry; Changes are the key
// changes it made (none for a read-only or failed transaction, or a
// compaction). Compact is the revision a compaction entry compacted to.
type Apply struct {
	Member    string   `json:"member"`
	Index     uint64   `json:"index"`
	Term      uint64   `json:"term"`
	EntryHash uint64   `json:"entry_hash"` // FNV-1a of the entry's data
	Rev       int64    `json:"rev"`
	Compact   int64    `json:"compact,omitempty"`
	Changes   []Change `json:"changes,omitempty"`
}

// TraceKind implements sim.Data.
func (e *Apply) TraceKind() string { return KindApply }

// AppendText implements sim.Data.
func (e *Apply) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "member", e.Member)
	b = sim.AppendUintField(b, "index", e.Index)
	b = sim.AppendUintField(b, "term", e.Term)
	b = sim.AppendHexField(b, "entry", e.EntryHash)
	b = sim.AppendIntField(b, "rev", e.Rev)
	if e.Compact != 0 {
		b = sim.AppendIntField(b, "compact", e.Compact)
	}
	for i := range e.Changes {
		b = e.Changes[i].AppendText(b)
		b = append(b, ' ')
	}
	return sim.TrimSpaceRight(b)
}

// KVHash is a member's store fingerprint, emitted by every live member when
// a scenario asks for it (at the end of a run).
type KVHash struct {
	Member     string `json:"member"`
	Applied    uint64 `json:"applied"`
	Rev        int64  `json:"rev"`
	CompactRev int64  `json:"compact_rev"`
	Hash       uint64 `json:"hash"`
}

// TraceKind implements sim.Data.
func (e *KVHash) TraceKind() string { return KindKVHash }

// AppendText implements sim.Data.
func (e *KVHash) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "member", e.Member)
	b = sim.AppendUintField(b, "applied", e.Applied)
	b = sim.AppendIntField(b, "rev", e.Rev)
	b = sim.AppendIntField(b, "compact", e.CompactRev)
	return sim.AppendHexField(b, "hash", e.Hash)
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
type Call struct {
	Client       string `json:"client"`
	Op           uint64 `json:"op"`
	Kind         OpKind `json:"kind"`
	Key          string `json:"key"`
	Value        string `json:"value,omitempty"`
	Expect       string `json:"expect,omitempty"`
	ExpectAbsent bool   `json:"expect_absent,omitempty"`
}

// TraceKind implements sim.Data.
func (e *Call) TraceKind() string { return KindCall }

// AppendText implements sim.Data.
func (e *Call) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "client", e.Client)
	b = sim.AppendUintField(b, "op", e.Op)
	b = sim.AppendField(b, "kind", string(e.Kind))
	b = sim.AppendField(b, "key", e.Key)
	if e.Value != "" {
		b = sim.AppendField(b, "value", e.Value)
	}
	if e.Kind == OpCAS {
		if e.ExpectAbsent {
			b = append(b, "expect=absent "...)
		} else {
			b = sim.AppendField(b, "expect", e.Expect)
		}
	}
	return sim.TrimSpaceRight(b)
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
type Return struct {
	Client    string  `json:"client"`
	Op        uint64  `json:"op"`
	Outcome   Outcome `json:"outcome"`
	Found     bool    `json:"found,omitempty"`     // get: the key existed
	Value     string  `json:"value,omitempty"`     // get: its value
	Version   int64   `json:"version,omitempty"`   // get: its version (puts since creation); 0 when not recorded
	Succeeded bool    `json:"succeeded,omitempty"` // cas: the compare held; delete: a key was deleted
	Rev       int64   `json:"rev,omitempty"`       // header revision of the answer
	Member    string  `json:"member,omitempty"`    // which member answered
	Err       string  `json:"err,omitempty"`
}

// TraceKind implements sim.Data.
func (e *Return) TraceKind() string { return KindReturn }

// AppendText implements sim.Data.
func (e *Return) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "client", e.Client)
	b = sim.AppendUintField(b, "op", e.Op)
	b = sim.AppendField(b, "outcome", string(e.Outcome))
	if e.Found {
		b = sim.AppendField(b, "value", e.Value)
		if e.Version != 0 {
			b = sim.AppendIntField(b, "version", e.Version)
		}
	}
	if e.Succeeded {
		b = append(b, "succeeded "...)
	}
	if e.Rev != 0 {
		b = sim.AppendIntField(b, "rev", e.Rev)
	}
	if e.Member != "" {
		b = sim.AppendField(b, "member", e.Member)
	}
	if e.Err != "" {
		b = sim.AppendField(b, "err", e.Err)
	}
	return sim.TrimSpaceRight(b)
}

// WatchOpen is emitted when a watcher asks a member for a watch on
// [Key, End) (End empty: the single key Key) starting at StartRev. Stream
// numbers the watcher's successive watches, so that responses can be told
// apart after a reconnect.
type WatchOpen struct {
	Watcher  string `json:"watcher"`
	Stream   uint64 `json:"stream"`
	Member   string `json:"member"`
	Key      string `json:"key"`
	End      string `json:"end,omitempty"`
	StartRev int64  `json:"start_rev"`
}

// TraceKind implements sim.Data.
func (e *WatchOpen) TraceKind() string { return KindWatchOpen }

// AppendText implements sim.Data.
func (e *WatchOpen) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "watcher", e.Watcher)
	b = sim.AppendUintField(b, "stream", e.Stream)
	b = sim.AppendField(b, "member", e.Member)
	b = sim.AppendField(b, "key", e.Key)
	b = sim.AppendField(b, "end", e.End)
	return sim.AppendIntField(b, "start", e.StartRev)
}

// WatchResp is emitted when a watcher receives a watch response. A progress
// notification has no events and Progress set. A cancellation for a
// compacted start revision has Canceled and CompactRev set.
type WatchResp struct {
	Watcher    string   `json:"watcher"`
	Stream     uint64   `json:"stream"`
	Member     string   `json:"member"`
	Rev        int64    `json:"rev"` // header revision
	Progress   bool     `json:"progress,omitempty"`
	Canceled   bool     `json:"canceled,omitempty"`
	CompactRev int64    `json:"compact_rev,omitempty"`
	Events     []Change `json:"events,omitempty"`
}

// TraceKind implements sim.Data.
func (e *WatchResp) TraceKind() string { return KindWatchResp }

// AppendText implements sim.Data.
func (e *WatchResp) AppendText(b []byte) []byte {
	b = sim.AppendField(b, "watcher", e.Watcher)
	b = sim.AppendUintField(b, "stream", e.Stream)
	b = sim.AppendField(b, "member", e.Member)
	b = sim.AppendIntField(b, "rev", e.Rev)
	if e.Progress {
		b = append(b, "progress "...)
	}
	if e.Canceled {
		b = sim.AppendIntField(b, "canceled-compact", e.CompactRev)
	}
	for i := range e.Events {
		b = e.Events[i].AppendText(b)
		b = append(b, ' ')
	}
	return sim.TrimSpaceRight(b)
}

// fnv64a is FNV-1a over s, without the allocation of hash/fnv.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
