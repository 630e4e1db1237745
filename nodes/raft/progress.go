package raft

// progressState is how the leader currently replicates to one follower.
type progressState uint8

const (
	// stateProbe: the leader does not know where the follower's log matches
	// and sends one MsgApp at a time until an answer (or a heartbeat reply)
	// arrives.
	stateProbe progressState = iota
	// stateReplicate: the logs match up to match; the leader streams MsgApps
	// optimistically, bounded by the in-flight window.
	stateReplicate
	// stateSnapshot: the follower needs a snapshot; appends pause until it
	// acknowledges the snapshot or the attempt stalls.
	stateSnapshot
)

var progressStateNames = [...]string{"probe", "replicate", "snapshot"}

func (s progressState) String() string { return progressStateNames[s] }

// progress is the leader's view of one follower (paper §5.3 nextIndex and
// matchIndex, plus flow control).
type progress struct {
	match, next uint64
	state       progressState
	// probeSent pauses a probing follower after one MsgApp.
	probeSent bool
	// pendingSnapshot is the index of the snapshot sent in stateSnapshot.
	pendingSnapshot uint64
	// sentCommit is the highest commit index sent in a MsgApp.
	sentCommit uint64
	// recentActive records whether the follower answered since the last
	// CheckQuorum round.
	recentActive bool
	// stallTicks counts ticks with appends or a snapshot outstanding and no
	// answer; after an election timeout the leader falls back to probing,
	// so that lost messages cannot wedge replication.
	stallTicks int
	ins        inflights
}

func (pr *progress) reset(next uint64) {
	ins := pr.ins
	ins.reset()
	*pr = progress{next: next, ins: ins}
}

func (pr *progress) becomeProbe() {
	if pr.state == stateSnapshot {
		// Resume after the snapshot if it was installed, else from match.
		pr.next = max(pr.match, pr.pendingSnapshot) + 1
	} else {
		pr.next = pr.match + 1
	}
	pr.state = stateProbe
	pr.probeSent = false
	pr.pendingSnapshot = 0
	pr.stallTicks = 0
	pr.ins.reset()
}

func (pr *progress) becomeReplicate() {
	pr.state = stateReplicate
	pr.next = pr.match + 1
	pr.probeSent = false
	pr.stallTicks = 0
	pr.ins.reset()
}

func (pr *progress) becomeSnapshot(index uint64) {
	pr.state = stateSnapshot
	pr.pendingSnapshot = index
	pr.probeSent = false
	pr.stallTicks = 0
	pr.ins.reset()
}

// paused reports whether the leader must hold further MsgApps.
func (pr *progress) paused() bool {
	switch pr.state {
	case stateProbe:
		return pr.probeSent
	case stateReplicate:
		return pr.ins.full()
	}
	return true
}

// maybeUpdate records an acknowledgement up to n; it reports whether match
// advanced.
func (pr *progress) maybeUpdate(n uint64) bool {
	updated := false
	if pr.match < n {
		pr.match = n
		updated = true
		pr.probeSent = false
	}
	pr.next = max(pr.next, n+1)
	return updated
}

// maybeDecrTo handles a rejection of the MsgApp whose previous index was
// rejected; hint is the leader's best guess of the last matching index. It
// reports false for stale rejections.
func (pr *progress) maybeDecrTo(rejected, hint uint64) bool {
	if pr.state == stateReplicate {
		if rejected <= pr.match {
			return false
		}
		pr.next = pr.match + 1
		return true
	}
	if pr.next-1 != rejected {
		return false
	}
	pr.next = max(min(rejected, hint+1), pr.match+1)
	pr.probeSent = false
	return true
}

// inflights is a ring buffer of the last index of each MsgApp in flight to a
// follower in replicate state.
type inflights struct {
	buf          []uint64
	start, count int
}

func newInflights(size int) inflights { return inflights{buf: make([]uint64, size)} }

func (in *inflights) full() bool { return in.count == len(in.buf) }

func (in *inflights) reset() { in.start, in.count = 0, 0 }

func (in *inflights) add(last uint64) {
	i := in.start + in.count
	if i >= len(in.buf) {
		i -= len(in.buf)
	}
	in.buf[i] = last
	in.count++
}

// freeLE releases every in-flight MsgApp whose last index is <= to.
func (in *inflights) freeLE(to uint64) {
	for in.count > 0 && in.buf[in.start] <= to {
		in.start++
		if in.start == len(in.buf) {
			in.start = 0
		}
		in.count--
	}
}

// freeFirst releases the oldest in-flight MsgApp, so that a follower with a
// full window still gets an append after a heartbeat answer.
func (in *inflights) freeFirst() {
	if in.count > 0 {
		in.freeLE(in.buf[in.start])
	}
}
