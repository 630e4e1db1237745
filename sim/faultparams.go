package sim

import (
	"fmt"
	"strconv"
	"time"
)

// paramType is the type of a fault parameter's value in the text form.
type paramType uint8

const (
	paramProb   paramType = iota // a probability in [0,1]
	paramDur                     // a non-negative duration
	paramName                    // a name, like a target's
	paramRate                    // a positive ratio
	paramOffset                  // a duration, negative or positive
)

func (t paramType) String() string {
	return [...]string{"probability", "duration", "name", "rate", "±duration"}[t]
}

// The rates a clock-drift may set.
const minRate, maxRate = 0.01, 100

// maxLatency bounds a slow-disk's fsync and a flaky link's delay: etcd
// warns of a slow fdatasync past one second, and a disk or link ten times
// slower than that has stopped, which a crash or partition says plainly.
// maxJump bounds a clock-jump: NTP steps clocks by seconds to hours, and a
// day is far past any of them.
const (
	maxLatency = 10 * time.Second
	maxJump    = 24 * time.Hour
)

// faultParam is one key=value parameter of the text form. Each belongs to
// one kind; the table drives printing, parsing and validation alike.
type faultParam struct {
	key      string
	kind     FaultKind
	typ      paramType
	required bool
	f64      func(*Fault) *float64
	dur      func(*Fault) *time.Duration
	str      func(*Fault) *string
}

// faultParams, in the order the text form prints them.
var faultParams = []faultParam{
	{key: "loss", kind: FaultFlaky, typ: paramProb, f64: func(f *Fault) *float64 { return &f.Loss }},
	{key: "dup", kind: FaultFlaky, typ: paramProb, f64: func(f *Fault) *float64 { return &f.Dup }},
	{key: "reorder", kind: FaultFlaky, typ: paramProb, f64: func(f *Fault) *float64 { return &f.Reorder }},
	{key: "delay", kind: FaultFlaky, typ: paramDur, dur: func(f *Fault) *time.Duration { return &f.Delay }},
	{key: "process", kind: FaultRestartProcess, typ: paramName, required: true, str: func(f *Fault) *string { return &f.Process }},
	{key: "rate", kind: FaultClockDrift, typ: paramRate, required: true, f64: func(f *Fault) *float64 { return &f.Rate }},
	{key: "by", kind: FaultClockJump, typ: paramOffset, required: true, dur: func(f *Fault) *time.Duration { return &f.By }},
	{key: "fsync", kind: FaultSlowDisk, typ: paramDur, required: true, dur: func(f *Fault) *time.Duration { return &f.Fsync }},
}

// paramKeys lists the keys, for errors.
func paramKeys() []string {
	keys := make([]string, len(faultParams))
	for i, p := range faultParams {
		keys[i] = p.key
	}
	return keys
}

func lookupParam(key string) (faultParam, bool) {
	for _, p := range faultParams {
		if p.key == key {
			return p, true
		}
	}
	return faultParam{}, false
}

func (p faultParam) isSet(f *Fault) bool {
	switch {
	case p.f64 != nil:
		return *p.f64(f) != 0
	case p.dur != nil:
		return *p.dur(f) != 0
	}
	return *p.str(f) != ""
}

// format prints the value as the text form writes it.
func (p faultParam) format(f *Fault) string {
	switch {
	case p.f64 != nil:
		return strconv.FormatFloat(*p.f64(f), 'g', -1, 64)
	case p.dur != nil:
		return p.dur(f).String()
	}
	return *p.str(f)
}

// parse sets the value from its text; check validates it afterwards.
func (p faultParam) parse(f *Fault, val string) error {
	switch {
	case p.f64 != nil:
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("invalid %s %q", p.typ, val)
		}
		*p.f64(f) = v
	case p.typ == paramOffset:
		d, err := time.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("invalid duration %q (want e.g. 2s or -500ms)", val)
		}
		*p.dur(f) = d
	case p.dur != nil:
		d, err := parseDur(val)
		if err != nil {
			return err
		}
		*p.dur(f) = d
	default:
		*p.str(f) = val
	}
	return nil
}

// check validates a value that is set.
func (p faultParam) check(f *Fault) error {
	switch p.typ {
	case paramProb:
		if v := *p.f64(f); v < 0 || v > 1 || v != v {
			return fmt.Errorf("probability %v outside [0,1]", v)
		}
	case paramDur:
		if *p.dur(f) < 0 {
			return fmt.Errorf("negative duration")
		}
		if d := *p.dur(f); d > maxLatency {
			return fmt.Errorf("%s=%v is longer than %v: a disk or link that slow has stopped; use a crash, pause or partition instead", p.key, d, maxLatency)
		}
	case paramOffset:
		if d := *p.dur(f); d > maxJump || d < -maxJump {
			return fmt.Errorf("%s=%v steps the clock by more than %v: a larger step is surely a mistake", p.key, d, maxJump)
		}
	case paramName:
		if v := *p.str(f); !validTargetName(v) {
			return fmt.Errorf("invalid %s %q", p.key, v)
		}
	case paramRate:
		// Bounded, so that a clock's readings stay far from overflow.
		if v := *p.f64(f); !(v >= minRate && v <= maxRate) {
			return fmt.Errorf("rate %v outside [%v, %v] (1.05 runs 5%% fast, 0.95 5%% slow)", v, minRate, maxRate)
		}
	}
	return nil
}
