package conformance

import (
	"fmt"
	"strings"
)

// KV is a key-value as both sides report it, normalized: the key is relative
// to the sequence prefix and revisions are simulator revisions.
type KV struct {
	Key     string
	Value   string
	Create  int64
	Mod     int64
	Version int64
}

func (kv *KV) String() string {
	if kv == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%s=%q c%d m%d v%d}", kv.Key, kv.Value, kv.Create, kv.Mod, kv.Version)
}

// Result is the normalized answer to one op (or to one op inside a txn).
// Fields that do not apply to the op stay zero.
type Result struct {
	// Err is the error, with etcd's "etcdserver: " prefix removed; empty for
	// none. When set, nothing else is compared.
	Err string
	// Rev is the header revision.
	Rev int64
	// Get.
	KVs   []KV
	Count int64
	More  bool
	// Put.
	PrevKV *KV
	// Delete.
	Deleted int64
	PrevKVs []KV
	// Txn.
	Succeeded bool
	Responses []Result
	// Members is the member list of a member call's answer.
	Members []Member
	// Watch is a watch's whole stream (in a divergence report only).
	Watch []WatchResp
}

// WatchResp is one watch response, normalized.
type WatchResp struct {
	// Watch is the index (in the sequence) of the op that opened the watch.
	Watch int
	// Rev is the header revision.
	Rev        int64
	Events     []Event
	Canceled   bool
	CompactRev int64
	// Err is set when the stream ended without a cancellation.
	Err string
}

// Event is one watch event.
type Event struct {
	Type   string // "PUT" or "DELETE"
	KV     KV
	PrevKV *KV
}

// String renders the result on one line per part, deterministically.
func (r Result) String() string {
	var b strings.Builder
	r.write(&b, "")
	return strings.TrimRight(b.String(), "\n")
}

func (r Result) write(b *strings.Builder, indent string) {
	if r.Err != "" {
		fmt.Fprintf(b, "%serr=%q\n", indent, r.Err)
	} else {
		fmt.Fprintf(b, "%srev=%d", indent, r.Rev)
		if len(r.KVs) > 0 || r.Count != 0 || r.More {
			fmt.Fprintf(b, " kvs=%v count=%d more=%v", kvsString(r.KVs), r.Count, r.More)
		}
		if r.PrevKV != nil {
			fmt.Fprintf(b, " prev=%s", r.PrevKV)
		}
		if r.Deleted != 0 || len(r.PrevKVs) > 0 {
			fmt.Fprintf(b, " deleted=%d prevs=%v", r.Deleted, kvsString(r.PrevKVs))
		}
		if r.Members != nil {
			fmt.Fprintf(b, " members=%v", r.Members)
		}
		if r.Responses != nil || r.Succeeded {
			fmt.Fprintf(b, " succeeded=%v", r.Succeeded)
		}
		b.WriteString("\n")
		for i, sub := range r.Responses {
			fmt.Fprintf(b, "%s  [%d]\n", indent, i)
			sub.write(b, indent+"    ")
		}
	}
	for _, w := range r.Watch {
		fmt.Fprintf(b, "%s%s\n", indent, w)
	}
}

func (w WatchResp) String() string {
	s := fmt.Sprintf("watch#%d rev=%d", w.Watch, w.Rev)
	if w.Canceled {
		s += fmt.Sprintf(" canceled compact=%d", w.CompactRev)
	}
	if w.Err != "" {
		s += fmt.Sprintf(" err=%q", w.Err)
	}
	for _, e := range w.Events {
		s += fmt.Sprintf(" %s%s", e.Type, e.KV.String())
		if e.PrevKV != nil {
			s += " prev" + e.PrevKV.String()
		}
	}
	return s
}

func kvsString(kvs []KV) string {
	var parts []string
	for i := range kvs {
		parts = append(parts, kvs[i].String())
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// normErr removes the prefix that etcd's gRPC errors add.
func normErr(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(err.Error(), "etcdserver: ")
}
