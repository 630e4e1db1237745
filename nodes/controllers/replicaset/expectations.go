package replicaset

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// ExpectationsTimeout is how long expectations a controller set wait to be
// observed before they expire and the controller acts again anyway
// (controller.ExpectationsTimeout, 5 min): a watch that lost an event must
// not leave a ReplicaSet asleep forever.
const ExpectationsTimeout = 5 * time.Minute

// expectee is what one ReplicaSet waits to observe, as
// ControlleeExpectations: pending adds and deletes, and when they were set.
type expectee struct {
	add, del int64
	at       sim.Time
}

// expectations is controller.UIDTrackingControllerExpectations on virtual
// time: per ReplicaSet key, the creations and deletions the controller made
// and has not yet seen through its informer. Deletions are tracked by pod
// key, so a pod seen deleted twice (deletionTimestamp set, then gone) is
// counted once.
type expectations struct {
	h *sim.Host
	// counts and deletes are looked up by key, never ranged.
	counts  map[string]*expectee
	deletes map[string]map[string]bool
}

func newExpectations(h *sim.Host) *expectations {
	return &expectations{h: h, counts: map[string]*expectee{}, deletes: map[string]map[string]bool{}}
}

// SatisfiedExpectations reports whether key may act: it set no
// expectations, or they were all observed, or they expired.
func (e *expectations) SatisfiedExpectations(key string) bool {
	exp, ok := e.counts[key]
	if !ok {
		return true // a new controller, or expectations deleted
	}
	if exp.add <= 0 && exp.del <= 0 {
		return true
	}
	return e.h.Now().Sub(exp.at) > ExpectationsTimeout
}

// ExpectCreations replaces key's expectations with adds pending creations.
func (e *expectations) ExpectCreations(key string, adds int) {
	e.counts[key] = &expectee{add: int64(adds), at: e.h.Now()}
}

// ExpectDeletions replaces key's expectations with the deletion of the
// pods podKeys.
func (e *expectations) ExpectDeletions(key string, podKeys []string) {
	set := make(map[string]bool, len(podKeys))
	for _, k := range podKeys {
		set[k] = true
	}
	e.deletes[key] = set
	e.counts[key] = &expectee{del: int64(len(set)), at: e.h.Now()}
}

// CreationObserved lowers key's pending creations by one.
func (e *expectations) CreationObserved(key string) {
	if exp, ok := e.counts[key]; ok {
		exp.add--
	}
}

// DeletionObserved lowers key's pending deletions by one if podKey is one
// it waits for, once.
func (e *expectations) DeletionObserved(key, podKey string) {
	set := e.deletes[key]
	if !set[podKey] {
		return
	}
	delete(set, podKey)
	if exp, ok := e.counts[key]; ok {
		exp.del--
	}
}

// DeleteExpectations forgets key (its ReplicaSet is gone).
func (e *expectations) DeleteExpectations(key string) {
	delete(e.counts, key)
	delete(e.deletes, key)
}

// pending returns key's pending adds and deletes (for tests).
func (e *expectations) pending(key string) (add, del int64, ok bool) {
	exp, ok := e.counts[key]
	if !ok {
		return 0, 0, false
	}
	return exp.add, exp.del, true
}
