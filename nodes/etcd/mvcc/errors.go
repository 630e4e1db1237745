package mvcc

import (
	"errors"
	"fmt"

	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Sentinel errors. The messages are etcd's own, so that a conformance test can
// compare them with a real server's.
var (
	// ErrCompacted is returned for reads, compactions and watches that need a
	// revision older than the compact revision. Errors carrying the compact
	// revision are *CompactedError, which matches ErrCompacted with errors.Is.
	ErrCompacted = errors.New(etcdtrace.ErrCompactedText)
	// ErrFutureRev is returned for reads and compactions past the current
	// revision. Errors carrying the revisions are *FutureRevError.
	ErrFutureRev = errors.New("mvcc: required revision is a future revision")

	// ErrEmptyKey is etcd's rejection of a request without a key.
	ErrEmptyKey = errors.New("etcdserver: key is not provided")
	// ErrKeyNotFound is returned by a put with IgnoreValue or IgnoreLease when
	// the key does not exist.
	ErrKeyNotFound = errors.New("etcdserver: key not found")
	// ErrDuplicateKey is returned for a txn whose puts and deletes overlap.
	ErrDuplicateKey = errors.New("etcdserver: duplicate key given in txn request")
	// ErrTooManyOps is returned for a txn with more than MaxTxnOps operations or
	// compares in one list.
	ErrTooManyOps = errors.New("etcdserver: too many operations in txn request")
	// ErrValueProvided is returned by a put with IgnoreValue and a value.
	ErrValueProvided = errors.New("etcdserver: value is provided")
	// ErrLeaseProvided is returned by a put with IgnoreLease and a lease.
	ErrLeaseProvided = errors.New("etcdserver: lease is provided")

	// ErrEmptyWatcherRange is returned for a watch whose range end is not after
	// its key.
	ErrEmptyWatcherRange = errors.New("mvcc: watcher range is empty")
	// ErrWatcherDuplicateID is returned for a watch that asks for an ID in use.
	ErrWatcherDuplicateID = errors.New("mvcc: duplicate watch ID provided on the WatchStream")
	// ErrWatcherNotExist is returned when cancelling an unknown watch.
	ErrWatcherNotExist = errors.New("mvcc: watcher does not exist")

	// ErrInvalidSnapshot is returned by Restore for bytes that Snapshot did not
	// produce.
	ErrInvalidSnapshot = errors.New("mvcc: invalid snapshot")
)

// CompactedError reports that a revision has been compacted away, and names the
// compact revision so that a watcher or API server can say where history starts.
type CompactedError struct {
	// CompactRev is the store's compact revision when the error was made.
	CompactRev int64
}

// Error returns etcd's message for ErrCompacted.
func (e *CompactedError) Error() string { return ErrCompacted.Error() }

// Is makes errors.Is(err, ErrCompacted) true.
func (e *CompactedError) Is(target error) bool { return target == ErrCompacted }

// FutureRevError reports that a revision is past the store's current revision.
type FutureRevError struct {
	// Rev is the revision that was asked for.
	Rev int64
	// CurrentRev is the store's revision when the error was made.
	CurrentRev int64
}

// Error returns etcd's message for ErrFutureRev.
func (e *FutureRevError) Error() string { return ErrFutureRev.Error() }

// Is makes errors.Is(err, ErrFutureRev) true.
func (e *FutureRevError) Is(target error) bool { return target == ErrFutureRev }

// invalidSnapshot wraps ErrInvalidSnapshot with a reason.
func invalidSnapshot(reason string) error {
	return fmt.Errorf("%w: %s", ErrInvalidSnapshot, reason)
}
