package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Trigger makes a fault wait for a moment instead of a time: from the
// fault's At until Until, each trace event of kind Event, on one of Hosts,
// whose text shows every field of Match, fires the fault a draw in
// [0, Within] later, at most Times times. Its text form comes before the
// fault's, after the time at which it is armed:
//
//	<at> on <event> [<hosts>] [<field>=<value> ...] [edge] [until <time>] [within <duration>] [times <n>]: <fault>
//
// where <fault> is a fault line without its time, e.g.
//
//	0s on raft.state role=leader edge within 500ms: crash etcd-leader for 5s
//	10s on etcd.member change=add-learner until 2m within 1s times 2: isolate etcd-leader for 3s
//	0s on timer apiservers name=apiserver-cache-reinit: pause etcd-leader for 2s
//
// The delay is drawn from a stream of its own (World.Rand), so that a
// trigger never shifts what another component draws.
type Trigger struct {
	// Event is the kind of event that fires it, as the timeline prints
	// it: a node event's trace kind (raft.state, etcd.apply, api.call,
	// informer.relist, kubelet.pod-ready, ...) or a kernel kind (send,
	// deliver, drop, refuse, timer, fault). '*' matches any run of
	// characters ("raft.*").
	Event string
	// Hosts, when set, are where the event must happen: host names, "*"
	// or role names (etcd-leader, apiservers, ...), resolved when it
	// happens, as a fault's targets are when it fires.
	Hosts []string
	// Match are fields the event must show, each as "key=value" in its
	// timeline text (see EventFields); '*' in a value matches any run of
	// characters. A kernel event shows peer=, port= and name= (a timer's
	// or a fault's name, a drop's reason).
	Match []FieldMatch
	// Edge fires only on an event that starts to match on its host: one
	// whose host's previous event of the kind did not match (a member
	// that becomes leader, not each later state it reports as leader).
	Edge bool
	// Until, when set, is the virtual time at which the trigger disarms:
	// an event from then on fires nothing. 0: armed to the end of the run.
	Until time.Duration
	// Within is the window after the event in which the fault lands, at a
	// uniform draw in [0, Within]; 0 lands it at once (after the event's
	// handler has returned).
	Within time.Duration
	// Times is how many events fire the fault, each its own copy; 0 means
	// once.
	Times int
}

// FieldMatch is one key=value a trigger's event must show.
type FieldMatch struct {
	Key, Value string
}

// The bounds of a trigger: at most maxTriggerTimes firings, so that a run
// stays bounded, and a window of at most maxTriggerWithin, past which the
// fault is no longer aimed at the moment.
const (
	maxTriggerTimes  = 1000
	maxTriggerWithin = time.Hour
)

// Fires is how many times the trigger fires at most: Times, or 1.
func (t *Trigger) Fires() int { return max(t.Times, 1) }

// String prints the trigger's part of the text form, from "on" to the
// colon.
func (t *Trigger) String() string {
	var b strings.Builder
	b.WriteString("on ")
	b.WriteString(t.Event)
	if len(t.Hosts) > 0 {
		b.WriteByte(' ')
		b.WriteString(strings.Join(t.Hosts, ","))
	}
	for _, m := range t.Match {
		b.WriteByte(' ')
		b.WriteString(m.Key)
		b.WriteByte('=')
		b.WriteString(m.Value)
	}
	if t.Edge {
		b.WriteString(" edge")
	}
	if t.Until != 0 {
		b.WriteString(" until ")
		b.WriteString(t.Until.String())
	}
	if t.Within != 0 {
		b.WriteString(" within ")
		b.WriteString(t.Within.String())
	}
	if t.Times != 0 {
		b.WriteString(" times ")
		b.WriteString(strconv.Itoa(t.Times))
	}
	b.WriteByte(':')
	return b.String()
}

// parseTrigger parses the tokens of a trigger between "on" and the colon.
func parseTrigger(fields []string) (*Trigger, string, error) {
	if len(fields) == 0 {
		return nil, "on", fmt.Errorf("missing event after \"on\" (want e.g. \"on raft.state role=leader within 500ms: crash etcd-leader for 5s\")")
	}
	t := &Trigger{Event: fields[0]}
	rest := fields[1:]
	if len(rest) > 0 && !strings.Contains(rest[0], "=") && !isTriggerKeyword(rest[0]) {
		t.Hosts = strings.Split(rest[0], ",")
		rest = rest[1:]
	}
	var seen []string // the keywords given, each at most once
	for len(rest) > 0 {
		tok := rest[0]
		if isTriggerKeyword(tok) {
			if slices.Contains(seen, tok) {
				return nil, tok, fmt.Errorf("%q is given twice: give one", tok)
			}
			seen = append(seen, tok)
			if tok == "edge" {
				t.Edge = true
				rest = rest[1:]
				continue
			}
			if len(rest) < 2 {
				return nil, tok, fmt.Errorf("missing value after %q", tok)
			}
			val := rest[1]
			switch tok {
			case "until", "within":
				d, err := parseDur(val)
				if err != nil {
					return nil, tok, err
				}
				if d == 0 {
					return nil, tok, fmt.Errorf("\"%s %s\" is no time: leave %q out", tok, val, tok)
				}
				if tok == "until" {
					t.Until = d
				} else {
					t.Within = d
				}
			case "times":
				n, err := strconv.Atoi(val)
				if err != nil || n < 1 {
					return nil, tok, fmt.Errorf("invalid count %q (want a whole number from 1 to %d)", val, maxTriggerTimes)
				}
				t.Times = n
			}
			rest = rest[2:]
			continue
		}
		key, val, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, "on", fmt.Errorf("unexpected %q (want <field>=<value>, edge, until, within or times)", tok)
		}
		if slices.ContainsFunc(t.Match, func(m FieldMatch) bool { return m.Key == key }) {
			return nil, "match", fmt.Errorf("field %s is matched twice: give one value", key)
		}
		t.Match = append(t.Match, FieldMatch{Key: key, Value: val})
		rest = rest[1:]
	}
	return t, "", nil
}

func isTriggerKeyword(s string) bool {
	return s == "edge" || s == "until" || s == "within" || s == "times"
}

// check validates the trigger of a fault armed at at, naming the field of
// the text form at fault.
func (t *Trigger) check(at time.Duration) (string, error) {
	if t.Event == "" {
		return "on", fmt.Errorf("missing event after \"on\"")
	}
	if !validEventName(t.Event) {
		return "on", fmt.Errorf("invalid event kind %q (want a kind the timeline prints, such as raft.state or timer)", t.Event)
	}
	for _, h := range t.Hosts {
		if h == "" || !validTargetName(h) || isTriggerKeyword(h) {
			return "on", fmt.Errorf("invalid host name %q", h)
		}
	}
	for i, m := range t.Match {
		if m.Key == "" || !validFieldText(m.Key) || strings.ContainsAny(m.Key, "=*") {
			return "match", fmt.Errorf("invalid field name %q", m.Key)
		}
		if m.Value == "" || !validFieldText(m.Value) || strings.HasSuffix(m.Value, ":") {
			return "match", fmt.Errorf("invalid value %q for field %s (want text without spaces that does not end in a colon)", m.Value, m.Key)
		}
		if slices.ContainsFunc(t.Match[:i], func(o FieldMatch) bool { return o.Key == m.Key }) {
			return "match", fmt.Errorf("field %s is matched twice: give one value", m.Key)
		}
	}
	switch {
	case t.Until < 0:
		return "until", fmt.Errorf("negative duration")
	case t.Until != 0 && t.Until <= at:
		return "until", fmt.Errorf("until %v is not after the trigger is armed (%v): it would never fire", t.Until, at)
	case t.Within < 0:
		return "within", fmt.Errorf("negative duration")
	case t.Within > maxTriggerWithin:
		return "within", fmt.Errorf("within %v is longer than %v: a fault that late is no longer aimed at the moment", t.Within, maxTriggerWithin)
	case t.Times < 0 || t.Times > maxTriggerTimes:
		return "times", fmt.Errorf("times %d outside [1, %d]", t.Times, maxTriggerTimes)
	}
	return "", nil
}

// validEventName reports whether s could name a trace kind: lower-case
// letters, digits, '.', '-', '_' and the wildcard '*'.
func validEventName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '*') {
			return false
		}
	}
	return true
}

// validFieldText reports whether s can be written in a trigger: printable
// ASCII without spaces, which end a token. (A token that ends in a colon
// ends the trigger.)
func validFieldText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}
