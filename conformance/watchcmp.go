package conformance

import (
	"fmt"
	"strings"
)

// compareStreams compares one watch's responses on both sides and describes
// the first difference, or returns "" when they agree. Events must agree
// exactly (types, kv, prev kv, order) and neither side may split one
// revision's events over two responses. Grouping and header revisions must
// agree exactly too, with one allowance when catchUp is set (the watch
// started at or below the current revision): etcd catches such a watch up on
// a 100 ms loop, so its first response may also carry the events of later
// writes made before that loop ran (with the header revision of that moment),
// where the simulator, which catches up at once, sent them live, one response
// per revision.
func compareStreams(sim, real []WatchResp, catchUp bool) string {
	if msg := firstDifference("event", flatten(sim), flatten(real), func(s, r string) bool { return s == r },
		func(s, r string) string { return fmt.Sprintf(": real %s, simulated %s", r, s) }); msg != "" {
		return msg
	}
	if msg := splitRevision(sim); msg != "" {
		return "simulated stream: " + msg
	}
	if msg := splitRevision(real); msg != "" {
		return "real stream: " + msg
	}
	s := sim
	if catchUp && len(real) > 0 && len(real[0].Events) > 0 {
		// Find the simulated responses whose events real etcd's first
		// response holds.
		n, k := 0, 0
		for k < len(sim) && n < len(real[0].Events) {
			n += len(sim[k].Events)
			k++
		}
		if n != len(real[0].Events) || k == 0 {
			return fmt.Sprintf("real etcd's first response (%s) does not cover whole simulated responses", real[0])
		}
		if real[0].Rev < sim[k-1].Rev {
			return fmt.Sprintf("real etcd's first response has header revision %d, below the simulated %d", real[0].Rev, sim[k-1].Rev)
		}
		merged := sim[k-1]
		merged.Rev = real[0].Rev
		merged.Events = real[0].Events
		s = append([]WatchResp{merged}, sim[k:]...)
	}
	return firstDifference("response", s, real, func(s, r WatchResp) bool { return s.String() == r.String() }, nil)
}

// firstDifference compares two sequences of what, simulated and real,
// element by element, and describes the first difference: an element one
// side has beyond the other's end, or a pair that is not equal ("<what>
// #i differs", followed by what detail says of the pair, if given). It
// returns "" when the sequences agree.
func firstDifference[T any](what string, sim, real []T, equal func(s, r T) bool, detail func(s, r T) string) string {
	for i := 0; i < max(len(sim), len(real)); i++ {
		switch {
		case i >= len(sim):
			return fmt.Sprintf("real etcd sent an extra %s #%d: %v", what, i, real[i])
		case i >= len(real):
			return fmt.Sprintf("the simulator sent an extra %s #%d: %v", what, i, sim[i])
		case equal(sim[i], real[i]):
			continue
		case detail != nil:
			return fmt.Sprintf("%s #%d differs%s", what, i, detail(sim[i], real[i]))
		}
		return fmt.Sprintf("%s #%d differs", what, i)
	}
	return ""
}

// flatten renders every event of a stream, with cancellations and stream
// ends as pseudo-events.
func flatten(rs []WatchResp) []string {
	var out []string
	for _, r := range rs {
		for _, e := range r.Events {
			s := e.Type + e.KV.String()
			if e.PrevKV != nil {
				s += " prev" + e.PrevKV.String()
			}
			out = append(out, s)
		}
		if r.Canceled || r.Err != "" {
			out = append(out, fmt.Sprintf("CANCELED{compact=%d err=%q}", r.CompactRev, r.Err))
		}
	}
	return out
}

// splitRevision reports a revision whose events span two responses, a
// response whose events go back in revision order, or a header revision
// below the events'.
func splitRevision(rs []WatchResp) string {
	last := int64(0)
	for i, r := range rs {
		for j, e := range r.Events {
			rev := e.KV.Mod
			switch {
			case j == 0 && rev <= last:
				return fmt.Sprintf("response #%d starts at revision %d, already sent", i, rev)
			case rev < last:
				return fmt.Sprintf("response #%d goes back to revision %d", i, rev)
			}
			last = rev
		}
		if len(r.Events) > 0 && r.Rev < last {
			return fmt.Sprintf("response #%d has header revision %d below its events' %d", i, r.Rev, last)
		}
	}
	return ""
}

func streamString(rs []WatchResp) string {
	if len(rs) == 0 {
		return "(no responses)"
	}
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, "\n")
}
