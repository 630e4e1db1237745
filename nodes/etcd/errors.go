package etcd

import (
	"errors"

	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
)

// Errors a member or the client returns. The messages are etcd's (or, for
// ErrDeadlineExceeded, what etcdctl prints when its command timeout passes).
var (
	// ErrNoLeader: the member knows no leader, so it did not propose the
	// request. Definitely not applied.
	ErrNoLeader = errors.New("etcdserver: no leader")
	// ErrTimeout: the member waited RequestTimeout for the request to
	// complete. The outcome is unknown.
	ErrTimeout = errors.New("etcdserver: request timed out")
	// ErrLeaderChanged: the leader changed while a linearizable read waited
	// for its read index. Reads only.
	ErrLeaderChanged = errors.New("etcdserver: leader changed")
	// ErrDeadlineExceeded: the client gave up waiting for an answer
	// (its RequestTimeout passed). The outcome is unknown.
	ErrDeadlineExceeded = errors.New("context deadline exceeded")
	// ErrWatchBroken: a watch stream lost a message (a gap in its sequence),
	// as when a TCP connection breaks. The watcher must resume elsewhere.
	ErrWatchBroken = errors.New("etcdclient: watch stream broken")
	// ErrUnknownRequest: the member did not understand the request.
	ErrUnknownRequest = errors.New("etcdserver: unknown request")
)

// DefinitelyNotApplied reports whether err proves that the request had no
// effect on the store: the member did not propose it (no leader), or it was
// applied and refused deterministically (compacted or future revision, an
// invalid request). Timeouts, "leader changed" and anything unknown do not.
func DefinitelyNotApplied(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrNoLeader), errors.Is(err, ErrUnknownRequest),
		errors.Is(err, ErrNotLeader), errors.Is(err, ErrLearnerNotSupported), errors.Is(err, ErrStopped),
		errors.Is(err, ErrNotEnoughStartedMembers), errors.Is(err, ErrUnhealthy),
		errors.Is(err, ErrLearnerNotReady), errors.Is(err, ErrMemberNotLearner),
		errors.Is(err, ErrTooManyLearners), errors.Is(err, ErrIDExists),
		errors.Is(err, ErrIDNotFound), errors.Is(err, ErrIDRemoved):
		return true
	case errors.Is(err, mvcc.ErrCompacted), errors.Is(err, mvcc.ErrFutureRev),
		errors.Is(err, mvcc.ErrEmptyKey), errors.Is(err, mvcc.ErrKeyNotFound),
		errors.Is(err, mvcc.ErrDuplicateKey), errors.Is(err, mvcc.ErrTooManyOps),
		errors.Is(err, mvcc.ErrValueProvided), errors.Is(err, mvcc.ErrLeaseProvided):
		return true
	}
	return false
}

// IsUnknownOutcome reports whether a request that failed with err may or may
// not have taken effect: any error that DefinitelyNotApplied cannot rule out.
func IsUnknownOutcome(err error) bool {
	return err != nil && !DefinitelyNotApplied(err)
}
