package mvcc

import "bytes"

// WatchID names a watch. IDs are unique within a store.
type WatchID int64

const (
	// AutoWatchID in a WatchRequest asks the store to pick the next free ID.
	AutoWatchID WatchID = 0
	// InvalidWatchID is the ID of a progress notification sent on behalf of a
	// whole stream (RequestProgressAll), as etcd's -1.
	InvalidWatchID WatchID = -1
)

// EventType is the kind of a watch event; values match etcd's mvccpb.
type EventType int32

const (
	// EventPut is a put: Kv is the new version.
	EventPut EventType = 0
	// EventDelete is a deletion: Kv has only Key and ModRevision (the
	// deletion's revision), as etcd sends it.
	EventDelete EventType = 1
)

// Event is one change seen by a watcher, as etcd's mvccpb.Event. Its Kv's
// Key and Value share the store's memory, as many watchers receive the same
// change: they are read-only (a real watcher decodes its own copy from the
// wire; kubesim's watchers read events and never write to them).
type Event struct {
	// Type says put or delete.
	Type EventType
	// Kv is the key after the change.
	Kv KeyValue
	// PrevKv is the key just before the change, when the watch asked for it,
	// the change is not a creation, and that revision is not compacted.
	PrevKv *KeyValue
}

// WatchRequest creates a watch, as etcd's WatchCreateRequest.
type WatchRequest struct {
	// ID is the watch ID to use, or AutoWatchID.
	ID WatchID
	// Stream is an opaque tag of the member's choosing (say, a client
	// connection). RequestProgressAll answers per stream, and every response
	// carries its watch's stream.
	Stream int64
	// Key is the key, or the start of the range.
	Key []byte
	// End is the range end: empty for a single key, "\x00" for every key >= Key.
	End []byte
	// StartRev is the first revision to report; 0 means the next one.
	StartRev int64
	// PrevKV asks for the previous version in each event.
	PrevKV bool
	// NoPut filters out put events.
	NoPut bool
	// NoDelete filters out delete events.
	NoDelete bool
}

// WatchResponse is one batch for one watch, as the mvcc layer hands it to
// etcd's gRPC watch stream.
type WatchResponse struct {
	// WatchID is the watch the response is for; InvalidWatchID for a
	// stream-wide progress notification.
	WatchID WatchID
	// Stream is the watch's stream tag.
	Stream int64
	// Events are the changes, in revision order. A revision's events are never
	// split across responses. Empty for a progress notification.
	Events []Event
	// Revision is the header revision: the revision of the events for a live
	// notification, the store's revision when a catch-up batch or a progress
	// notification was made, 0 for a compaction cancel (as etcd).
	Revision int64
	// CompactRevision is set when the watch was cancelled because its start
	// revision is compacted; it names the compact revision.
	CompactRevision int64
	// Canceled is true for a compaction cancel.
	Canceled bool
}

// watcherState is where a watcher is in etcd's watchable store.
type watcherState uint8

const (
	// watcherUnsynced watchers still have history to catch up on.
	watcherUnsynced watcherState = iota
	// watcherSynced watchers are notified on every write.
	watcherSynced
	// watcherCompacted watchers were cancelled for compaction and stay
	// registered until CancelWatch, as in etcd.
	watcherCompacted
)

// watcher is one registered watch.
type watcher struct {
	id     WatchID
	stream int64
	r      keyRange
	minRev int64
	// startRev is the StartRev asked for (0 for "from now on"); etcd's
	// watcher.startRev, which a progress notification must not precede.
	startRev int64
	prevKV   bool
	noPut    bool
	noDelete bool
	state    watcherState
	// restore marks a watcher moved back to unsynced by Restore; its minRev
	// may then exceed the restored revision.
	restore bool
}

// watchState is the watch half of the store.
type watchState struct {
	watchers []*watcher // sorted by id
	nextID   WatchID
	queue    []WatchResponse
}

// NewWatch registers a watch, as etcd's watchStream.Watch on the watchable
// store. A StartRev of 0, or one past the current revision, gives a synced
// watcher that sees only writes from then on (from StartRev if that is later).
// An older StartRev gives an unsynced watcher that catches up from history on
// the next SyncWatchers or Drain; if StartRev is below the compact revision by
// then, the watch is cancelled with a response naming the compact revision.
// A negative StartRev is refused with ErrCompacted, as etcd's gRPC layer does.
func (s *Store) NewWatch(req WatchRequest) (WatchID, error) {
	if req.StartRev < 0 {
		return InvalidWatchID, ErrCompacted
	}
	if len(req.End) != 0 && !(len(req.End) == 1 && req.End[0] == 0) && bytes.Compare(req.Key, req.End) >= 0 {
		return InvalidWatchID, ErrEmptyWatcherRange
	}
	ws := &s.watch
	id := req.ID
	if id == AutoWatchID {
		for ws.find(ws.nextID) != nil {
			ws.nextID++
		}
		id = ws.nextID
		ws.nextID++
	} else if id < 0 || ws.find(id) != nil {
		return InvalidWatchID, ErrWatcherDuplicateID
	}
	w := &watcher{
		id:       id,
		stream:   req.Stream,
		r:        newKeyRange(req.Key, req.End),
		minRev:   req.StartRev,
		startRev: req.StartRev,
		prevKV:   req.PrevKV,
		noPut:    req.NoPut,
		noDelete: req.NoDelete,
	}
	if req.StartRev == 0 || req.StartRev > s.rev {
		w.state = watcherSynced
		w.minRev = max(s.rev+1, req.StartRev)
	}
	ws.insert(w)
	return id, nil
}

// CancelWatch removes a watch; later writes produce nothing for it. Responses
// already queued for it stay queued.
func (s *Store) CancelWatch(id WatchID) error {
	ws := &s.watch
	i, ok := ws.index(id)
	if !ok {
		return ErrWatcherNotExist
	}
	ws.watchers = append(ws.watchers[:i], ws.watchers[i+1:]...)
	return nil
}

// RequestProgress queues an empty response carrying the current revision for
// one watch, if it is synced, as etcd's RequestProgress; it reports whether it
// did. An unsynced watch gets nothing: its catch-up will carry the revision;
// nor does a watch whose start revision is still ahead.
func (s *Store) RequestProgress(id WatchID) bool {
	w := s.watch.find(id)
	if w == nil || !s.progressable(w) {
		return false
	}
	s.watch.queue = append(s.watch.queue, WatchResponse{WatchID: id, Stream: w.stream, Revision: s.rev})
	return true
}

// RequestProgressAll is etcd's RequestProgressAll for the watches of one
// stream: if every one of them is synced it queues a single empty response with
// WatchID InvalidWatchID and the current revision, and reports true (true and
// nothing queued when the stream has no watch). Otherwise it queues nothing and
// reports false.
func (s *Store) RequestProgressAll(stream int64) bool {
	n := 0
	for _, w := range s.watch.watchers {
		if w.stream != stream {
			continue
		}
		if !s.progressable(w) {
			return false
		}
		n++
	}
	if n > 0 {
		s.watch.queue = append(s.watch.queue, WatchResponse{WatchID: InvalidWatchID, Stream: stream, Revision: s.rev})
	}
	return true
}

// progressable reports whether a progress notification may be sent for w
// now, as etcd's watchableStore.progressIfSync (server/storage/mvcc/
// watchable_store.go): it is synced, and the current revision is not below
// the revision it asked to start from (a notification must not claim a
// revision before the watch's start).
func (s *Store) progressable(w *watcher) bool {
	return w.state == watcherSynced && s.rev >= w.startRev
}

// Watching reports the number of registered watches.
func (s *Store) Watching() int { return len(s.watch.watchers) }

// index returns the position of watch id, and whether it is registered.
func (ws *watchState) index(id WatchID) (int, bool) {
	lo, hi := 0, len(ws.watchers)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ws.watchers[m].id < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(ws.watchers) && ws.watchers[lo].id == id
}

// find returns watch id, or nil.
func (ws *watchState) find(id WatchID) *watcher {
	if i, ok := ws.index(id); ok {
		return ws.watchers[i]
	}
	return nil
}

// insert registers w in id order.
func (ws *watchState) insert(w *watcher) {
	i, _ := ws.index(w.id)
	ws.watchers = append(ws.watchers, nil)
	copy(ws.watchers[i+1:], ws.watchers[i:])
	ws.watchers[i] = w
}
