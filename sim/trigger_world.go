package sim

import (
	"bytes"
	"time"
)

// armed is a triggered fault waiting on the trace for its moment.
type armed struct {
	f    Fault // the fault to inject, its trigger cleared
	on   *Trigger
	from Time // armed from (the fault's At)
	left int  // firings left
	rng  *Stream
	// matched says, by host (HostID+1, 0 for none), whether the host's
	// last event of the kind matched: an edge trigger's memory.
	matched []bool
}

// triggers holds a world's armed triggers and the one trace subscriber
// that serves them all, in the order they were armed.
type triggers struct {
	armed []*armed
	buf   []byte
}

// arm makes f, a fault with a trigger, wait on the trace for its moment.
// Its delays come from a stream of its own, named by its text, so that
// arming it shifts no other stream (two identical lines share one).
func (w *World) arm(f Fault) {
	if w.triggers == nil {
		w.triggers = &triggers{}
		w.Subscribe(w.triggers.observe(w))
	}
	a := &armed{f: f, on: f.On, from: Time(f.At), left: f.On.Fires(), rng: w.Rand("fault-trigger/" + f.String())}
	a.f.On = nil
	w.triggers.armed = append(w.triggers.armed, a)
}

// observe returns the subscriber that fires the triggers an event matches.
func (t *triggers) observe(w *World) Subscriber {
	return func(e *Event) {
		for _, a := range t.armed {
			if a.left == 0 || e.At < a.from || (a.on.Until != 0 && e.At >= Time(a.on.Until)) {
				continue
			}
			if !globMatch(a.on.Event, EventKindName(e)) || !w.onHosts(a.on.Hosts, e.Host) {
				continue
			}
			ok := true
			if len(a.on.Match) > 0 {
				t.buf = AppendEventFields(t.buf[:0], w, e)
				ok = fieldsMatch(t.buf, a.on.Match)
			}
			if a.on.Edge {
				ok = a.edge(e.Host, ok)
			}
			if !ok {
				continue
			}
			a.left--
			var delay time.Duration
			if a.on.Within > 0 {
				delay = time.Duration(a.rng.Int64N(int64(a.on.Within) + 1))
			}
			f := a.f
			f.At = time.Duration(e.At) + delay
			// Never inject inside the event's own handler: the fault
			// lands after it, as a queued world callback.
			w.After(delay, "fault-trigger", func() { w.Inject(f) })
		}
	}
}

// edge records whether host's event matched, and reports whether it
// starts to match: the host's previous event of the kind did not.
func (a *armed) edge(host HostID, matched bool) bool {
	i := int(host) + 1
	for len(a.matched) <= i {
		a.matched = append(a.matched, false)
	}
	was := a.matched[i]
	a.matched[i] = matched
	return matched && !was
}

// onHosts reports whether host is one that names resolve to now (any host
// when names is empty).
func (w *World) onHosts(names []string, host HostID) bool {
	if len(names) == 0 {
		return true
	}
	if host == NoHost {
		return false
	}
	ids, err := w.resolveGroup(names)
	return err == nil && containsHost(ids, host)
}

// AppendEventFields appends the fields of e that a trigger matches, as the
// timeline prints them: a node event's text (Data.AppendText), or for a
// kernel event "peer=<host> port=<port> name=<name>", each only when set
// (name is a timer's or a fault's name, or why a message was dropped).
func AppendEventFields(b []byte, w *World, e *Event) []byte {
	if e.Data != nil {
		return e.Data.AppendText(b)
	}
	t := Text(b)
	if e.Peer != NoHost {
		t = t.Str("peer", w.HostName(e.Peer))
	}
	return t.StrOpt("port", e.Port).StrOpt("name", e.Name).Trimmed()
}

// fieldsMatch reports whether text shows every match as a whole
// space-separated word "key=value".
func fieldsMatch(text []byte, match []FieldMatch) bool {
	for _, m := range match {
		if !hasField(text, m) {
			return false
		}
	}
	return true
}

func hasField(text []byte, m FieldMatch) bool {
	for len(text) > 0 {
		word, rest, _ := bytes.Cut(text, []byte{' '})
		if key, val, ok := bytes.Cut(word, []byte{'='}); ok && string(key) == m.Key && globMatch(m.Value, val) {
			return true
		}
		text = rest
	}
	return false
}

// globMatch reports whether s matches pattern, in which '*' matches any
// run of characters (none included) and every other character itself.
func globMatch[S string | []byte](pattern string, s S) bool {
	star, mark := -1, 0 // the last '*' seen, and where in s it began to match
	p, i := 0, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
