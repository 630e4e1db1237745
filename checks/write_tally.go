package checks

import "github.com/kubesim/kubesim/sim"

// writeTally counts the writes of one counter of a workload (no-lost-updates'
// counters, status-updates' spec and status) by how they ended:
// acknowledged (2xx), of unknown outcome (no answer, or a 5xx other than
// 503: it may or may not have applied) and failed. From a base, the
// counter's final value must lie within bounds.
type writeTally struct{ acked, unknown, failed int64 }

// count files a write answered with code and reports whether it was
// acknowledged.
func (t *writeTally) count(code int) bool {
	switch {
	case ok2xx(code):
		t.acked++
		return true
	case unknownOutcome(code):
		t.unknown++
	default:
		t.failed++
	}
	return false
}

// add adds u's writes to t, for a check's totals.
func (t *writeTally) add(u writeTally) {
	t.acked += u.acked
	t.unknown += u.unknown
	t.failed += u.failed
}

// writes is how many writes t counts.
func (t writeTally) writes() int64 { return t.acked + t.unknown + t.failed }

// bounds is the range a final value from base may take: every
// acknowledged write applied, and any of the unknown ones.
func (t writeTally) bounds(base int64) (lo, hi int64) {
	return base + t.acked, base + t.acked + t.unknown
}

// ackRef is an acknowledged write: who sent it, and when it was answered.
type ackRef struct {
	client string
	op     uint64
	at     sim.Time
}

// firstAck records ref as the first acknowledged write under k, or returns
// the one recorded before it: a resourceVersion can be matched once, and a
// counter's value written once, so a second is a lost update.
func firstAck[K comparable](acks map[K]ackRef, k K, ref ackRef) (prev ackRef, dup bool) {
	if prev, dup = acks[k]; !dup {
		acks[k] = ref
	}
	return prev, dup
}
