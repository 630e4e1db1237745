package etcdtrace

// ServedRange is emitted by a member that traces what it serves
// (etcd.Config.TraceServed) for every Range it answers: the range asked
// for (Key, End, At the revision asked for, 0 for the current one, and
// Limit), the header revision it answered at (Rev), and either the
// answer, the count of matching keys, how many it returned and their
// StateHash, or the error. A check rebuilds from it, with the committed
// history, whether the answer is the state at its revision.
//
//trace:kind KindServedRange etcd.served-range
type ServedRange struct {
	Member string `json:"member" trace:"member"`
	Key    string `json:"key" trace:"key"`
	End    string `json:"end,omitempty" trace:"end,omitempty"`
	At     int64  `json:"at,omitempty" trace:"at,omitempty"`
	Limit  int64  `json:"limit,omitempty" trace:"limit,omitempty"`
	Rev    int64  `json:"rev" trace:"rev"`
	Count  int64  `json:"count" trace:"count"`
	Keys   int    `json:"keys" trace:"keys"`
	Hash   uint64 `json:"hash" trace:"hash,hex"`
	Err    string `json:"err,omitempty" trace:"err,omitempty"`
}

// ServedWatch is emitted by a member that traces what it serves
// (etcd.Config.TraceServed) for every watch response it sends: the
// stream, the header revision, whether the watch was canceled (and at
// which compact revision, for a start revision compacted away), and the
// events, each a key change at its revision.
//
//trace:kind KindServedWatch etcd.served-watch
type ServedWatch struct {
	Member     string   `json:"member" trace:"member"`
	Stream     uint64   `json:"stream" trace:"stream"`
	Rev        int64    `json:"rev" trace:"rev"`
	Canceled   bool     `json:"canceled,omitempty" trace:"canceled,flag"`
	CompactRev int64    `json:"compact_rev,omitempty" trace:"compact,omitempty"`
	Events     []Change `json:"events,omitempty" trace:""`
}
