package kubelet

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// crashBackoff is the kubelet's CrashLoopBackOff bookkeeping, as its
// flowcontrol.Backoff keyed by pod UID and container name (without jitter,
// as the kubelet makes it): the first restart of a container is immediate;
// each later one waits, after the container finished, for a back-off that
// starts at initial and doubles up to max. An entry expires, so that the
// next crash counts as the first again, when the container ran for more
// than twice max (10 min) since the last restart decision. It lives in the
// kubelet process's memory: a kubelet restart forgets it.
type crashBackoff struct {
	initial, max time.Duration
	entries      map[string]*backoffEntry
}

type backoffEntry struct {
	backoff    time.Duration
	lastUpdate sim.Time
}

func newCrashBackoff(initial, max time.Duration) *crashBackoff {
	return &crashBackoff{initial: initial, max: max, entries: make(map[string]*backoffEntry)}
}

// expired is flowcontrol's hasExpired: stable for twice the maximum.
func (b *crashBackoff) expired(e *backoffEntry, eventTime sim.Time) bool {
	return eventTime.Sub(e.lastUpdate) > 2*b.max
}

// inBackoff is IsInBackOffSince: the container finished at eventTime and
// its back-off has not elapsed yet at now. It returns when it elapses.
func (b *crashBackoff) inBackoff(key string, eventTime, now sim.Time) (sim.Time, bool) {
	e, ok := b.entries[key]
	if !ok || b.expired(e, eventTime) {
		return 0, false
	}
	until := eventTime.Add(e.backoff)
	return until, now < until
}

// next is Next: record a restart decided at now for a container that
// finished at eventTime, growing the back-off.
func (b *crashBackoff) next(key string, eventTime, now sim.Time) {
	e, ok := b.entries[key]
	if !ok || b.expired(e, eventTime) {
		e = &backoffEntry{backoff: b.initial}
		b.entries[key] = e
	} else {
		e.backoff = min(2*e.backoff, b.max)
	}
	e.lastUpdate = now
}

// current returns the key's back-off, for the CrashLoopBackOff message.
func (b *crashBackoff) current(key string) time.Duration {
	if e, ok := b.entries[key]; ok {
		return e.backoff
	}
	return 0
}

// forget drops every entry of a pod.
func (b *crashBackoff) forget(keys []string) {
	for _, k := range keys {
		delete(b.entries, k)
	}
}
