package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The text form of a schedule is one fault per line:
//
//	<at> <kind> [<targets>] [for <duration>] [<key>=<value> ...]
//
// Targets are comma-separated names; partition groups are separated by '|'
// and a one-way cut is written from>to (a host may not be on both sides).
// The parameters belong to one kind each:
//
//	flaky            loss=<p> dup=<p> reorder=<p> delay=<duration>
//	restart-process  process=<name> (required; no "for": it acts at once)
//	clock-drift      rate=<r> (required: local seconds per second, 0.01 to 100, e.g. 1.05 or 0.95)
//	clock-jump       by=<±duration> (required: steps the wall clock; no "for")
//	slow-disk        fsync=<duration> (required: what every fsync takes meanwhile)
//
// Without "for", a fault that lasts (crash, torn, wipe, pause, the network
// faults, clock-drift, slow-disk) lasts until the end of the run.
//
// Blank lines and lines starting with '#' are ignored. For example:
//
//	# kubesim fault schedule
//	10s crash etcd-1 for 5s
//	20s partition etcd-1,etcd-2|etcd-3,etcd-4,etcd-5 for 30s
//	25s oneway etcd-1>etcd-3 for 2s
//	40s restart-process node-3 process=kubelet
//	50s clock-drift etcd-2 for 60s rate=1.05
//	55s clock-jump node-1 by=-30s
//	60s flaky * for 10s loss=0.2 dup=0.05
//	70s slow-disk etcd-3 for 20s fsync=200ms
//	90s heal
//
// A fault may wait for a moment instead (see Trigger): "on", the event
// that fires it and how, then a colon and the fault without its time. Its
// <at> is when the trigger is armed, 0s if left out:
//
//	[<at>] on <event> [<hosts>] [<field>=<value> ...] [until <time>] [within <duration>] [times <n>]: <fault>
//	0s on raft.state role=leader within 500ms: crash etcd-leader for 5s
//
// String and ParseSchedule are exact inverses (but for Pos, which the text
// form does not carry, and a trigger's <at>, which always prints).

// String prints the fault in the text form.
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(f.At.String())
	b.WriteByte(' ')
	if f.On != nil {
		b.WriteString(f.On.String())
		b.WriteByte(' ')
	}
	b.WriteString(string(f.Kind))
	if len(f.Targets) > 0 {
		sep := kindInfos[f.Kind].sep
		b.WriteByte(' ')
		for i, g := range f.Targets {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(strings.Join(g, ","))
		}
	}
	if f.For != 0 {
		b.WriteString(" for ")
		b.WriteString(f.For.String())
	}
	for _, p := range faultParams {
		if p.isSet(&f) {
			b.WriteByte(' ')
			b.WriteString(p.key)
			b.WriteByte('=')
			b.WriteString(p.format(&f))
		}
	}
	return b.String()
}

// String prints the schedule, one fault per line, with a header comment.
func (s Schedule) String() string {
	var b strings.Builder
	b.WriteString("# kubesim fault schedule\n")
	for _, f := range s {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ScheduleError names the source, line and field of a malformed schedule.
type ScheduleError struct {
	Source string
	Line   int
	Field  string
	Err    string
}

func (e *ScheduleError) Error() string {
	return fmt.Sprintf("%s:%d: field %q: %s", e.Source, e.Line, e.Field, e.Err)
}

// ParseSchedule parses the text form. source names the input (a file name)
// in errors, which also give the line and the field at fault.
func ParseSchedule(source, text string) (Schedule, error) {
	var s Schedule
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f, field, err := parseFault(line)
		if err != nil {
			return nil, &ScheduleError{Source: source, Line: i + 1, Field: field, Err: err.Error()}
		}
		f.Pos = fmt.Sprintf("%s:%d", source, i+1)
		s = append(s, f)
	}
	return s, nil
}

// ParseFault parses a single line of the text form.
func ParseFault(line string) (Fault, error) {
	f, field, err := parseFault(strings.TrimSpace(line))
	if err != nil {
		return Fault{}, fmt.Errorf("field %q: %v", field, err)
	}
	return f, nil
}

func parseFault(line string) (Fault, string, error) {
	fields := strings.Fields(line)
	if len(fields) > 0 && strings.TrimSuffix(fields[0], ":") == "on" {
		fields = append([]string{"0s"}, fields...) // a trigger armed from the start
	}
	if len(fields) > 1 && fields[1] == "on:" {
		return Fault{}, "on", fmt.Errorf("missing event after \"on\"")
	}
	if len(fields) < 2 || fields[1] != "on" {
		return parseFields(line, fields, nil)
	}
	// The colon that ends the trigger comes after "on" (an earlier one,
	// as in ": on", is no trigger's).
	end := slices.IndexFunc(fields[2:], func(s string) bool { return strings.HasSuffix(s, ":") })
	if end >= 0 {
		end += 2
	}
	if end < 0 {
		return Fault{}, "on", fmt.Errorf("a trigger ends with a colon before its fault (want e.g. \"on raft.state role=leader within 500ms: crash etcd-leader for 5s\")")
	}
	on := slices.Clone(fields[2:end])
	if last := strings.TrimSuffix(fields[end], ":"); last != "" {
		on = append(on, last)
	}
	t, field, err := parseTrigger(on)
	if err != nil {
		return Fault{}, field, err
	}
	return parseFields(line, append([]string{fields[0]}, fields[end+1:]...), t)
}

// parseFields parses the fields of a fault line (its trigger, if any,
// parsed already into on).
func parseFields(line string, fields []string, on *Trigger) (Fault, string, error) {
	f := Fault{On: on}
	if len(fields) < 2 {
		return f, "kind", fmt.Errorf("want \"<at> <kind> [targets] [for <duration>]\", got %q", line)
	}
	at, err := parseDur(fields[0])
	if err != nil {
		return f, "at", err
	}
	f.At = at
	f.Kind = FaultKind(fields[1])
	info, ok := kindInfos[f.Kind]
	if !ok {
		return f, "kind", fmt.Errorf("unknown fault %q (want one of %v)", fields[1], FaultKinds)
	}
	rest := fields[2:]
	if info.groups != -1 && len(rest) > 0 && rest[0] != "for" && !strings.Contains(rest[0], "=") {
		f.Targets = splitTargets(rest[0], info.sep)
		rest = rest[1:]
	}
	var seen []string // "for" and the parameter keys given, each at most once
	for len(rest) > 0 {
		tok := rest[0]
		if tok == "for" {
			if slices.Contains(seen, "for") {
				return f, "for", fmt.Errorf("\"for\" is given twice: give one duration")
			}
			seen = append(seen, "for")
			if len(rest) < 2 {
				return f, "for", fmt.Errorf("missing duration after \"for\"")
			}
			if f.For, err = parseDur(rest[1]); err != nil {
				return f, "for", err
			}
			if f.For == 0 {
				// 0 is how a Fault says "until the end"; written out, it
				// is surely a slip, and would print back without "for".
				return f, "for", fmt.Errorf("\"for %s\" lasts no time: leave \"for\" out for a fault that lasts until the end of the run, or give a positive duration", rest[1])
			}
			rest = rest[2:]
			continue
		}
		key, val, ok := strings.Cut(tok, "=")
		if !ok {
			return f, "targets", fmt.Errorf("unexpected %q", tok)
		}
		p, ok := lookupParam(key)
		if !ok {
			return f, key, fmt.Errorf("unknown parameter %q (want one of %s)", key, strings.Join(paramKeys(), ", "))
		}
		if slices.Contains(seen, key) {
			return f, key, fmt.Errorf("%s is given twice: give one value", key)
		}
		seen = append(seen, key)
		if err := p.parse(&f, val); err != nil {
			return f, key, err
		}
		if err := p.check(&f); err != nil {
			return f, key, err
		}
		rest = rest[1:]
	}
	if field, err := f.check(); err != nil {
		return f, field, err
	}
	return f, "", nil
}

func splitTargets(s, sep string) [][]string {
	parts := []string{s}
	if sep != "" {
		parts = strings.Split(s, sep)
	}
	groups := make([][]string, len(parts))
	for i, p := range parts {
		groups[i] = strings.Split(p, ",")
	}
	return groups
}

func parseDur(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. 1.5s or 300ms)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return d, nil
}
