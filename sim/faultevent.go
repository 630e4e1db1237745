package sim

import (
	"strconv"
	"strings"
	"time"
)

// EventResume is the name of the fault event that ends a pause.
const EventResume = "resume"

const (
	healedSuffix     = "-healed"
	unresolvedSuffix = "-unresolved"
	invalidSuffix    = "-invalid"
)

// EndEvent names the fault event that closes a window k opened on a host:
// "restart" after a crash, "resume" after a pause, "<kind>-healed"
// otherwise; "" when k opens no window. (A heal also closes the windows
// of the network kinds, and a crash closes a pause.)
func (k FaultKind) EndEvent() string {
	switch {
	case !k.StartsWindow():
		return ""
	case k.CrashesHost():
		return string(FaultRestart)
	case k == FaultPause:
		return EventResume
	}
	return string(k) + healedSuffix
}

// FaultEvent is what the name of a KindFault trace event says. An event
// that opens a window, or acts at once, is named after its kind; see
// EndEvent for the names that close one.
type FaultEvent struct {
	// Kind is the fault the event belongs to. An event that closes a
	// window names the kind that opened it; "restart" names FaultCrash
	// (the host was down, whichever crashing kind took it).
	Kind FaultKind
	// Ends says the event closes a window of Kind on its host.
	Ends bool
	// Unresolved says the fault's targets did not resolve, or the fault
	// was invalid: nothing happened.
	Unresolved bool
}

// ParseFaultEvent reads the name of a KindFault trace event.
func ParseFaultEvent(name string) FaultEvent {
	switch {
	case strings.HasSuffix(name, unresolvedSuffix):
		return FaultEvent{Kind: FaultKind(strings.TrimSuffix(name, unresolvedSuffix)), Unresolved: true}
	case strings.HasSuffix(name, invalidSuffix):
		return FaultEvent{Kind: FaultKind(strings.TrimSuffix(name, invalidSuffix)), Unresolved: true}
	case strings.HasSuffix(name, healedSuffix):
		return FaultEvent{Kind: FaultKind(strings.TrimSuffix(name, healedSuffix)), Ends: true}
	case name == EventResume:
		return FaultEvent{Kind: FaultPause, Ends: true}
	case name == string(FaultRestart):
		return FaultEvent{Kind: FaultCrash, Ends: true}
	}
	return FaultEvent{Kind: FaultKind(name)}
}

// Starts reports whether the event opens a fault window on its host.
func (e FaultEvent) Starts() bool { return !e.Ends && !e.Unresolved && e.Kind.StartsWindow() }

// FaultDetail is the Data of a fault event whose fault has parameters
// beyond its targets: the trace says what was done, not only to whom.
type FaultDetail struct {
	Process string        `json:"process,omitempty"` // restart-process
	Rate    float64       `json:"rate,omitempty"`    // clock-drift
	By      time.Duration `json:"by,omitempty"`      // clock-jump
	Fsync   time.Duration `json:"fsync,omitempty"`   // slow-disk
}

// TraceKind implements Data.
func (d *FaultDetail) TraceKind() string { return "fault" }

// AppendText implements Data.
func (d *FaultDetail) AppendText(b []byte) []byte {
	t := Text(b).StrOpt("process", d.Process)
	if d.Rate != 0 {
		t = t.Str("rate", strconv.FormatFloat(d.Rate, 'g', -1, 64))
	}
	if d.By != 0 {
		t = t.Str("by", d.By.String())
	}
	if d.Fsync != 0 {
		t = t.Str("fsync", d.Fsync.String())
	}
	return t.Trimmed()
}
