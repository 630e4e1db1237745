package sim

import (
	"fmt"
	"slices"
	"time"
)

// Fault is one entry of a fault schedule: data, not code.
type Fault struct {
	At      time.Duration // virtual time since the world began
	Kind    FaultKind
	Targets [][]string    // target groups; most kinds take exactly one
	For     time.Duration // how long until it is undone; 0 means never
	// Flaky parameters.
	Loss, Dup, Reorder float64
	Delay              time.Duration
	// Process names the process a restart-process fault restarts.
	Process string
	// Rate is a clock-drift's clock rate: local seconds per virtual second.
	Rate float64
	// By is a clock-jump's step of the wall clock, forward or back.
	By time.Duration
	// Fsync is a slow-disk's fsync latency.
	Fsync time.Duration
	// On, when set, makes the fault wait for a moment: from At, it fires
	// after each trace event the trigger matches, as often as it allows
	// (see Trigger). Nil: the fault fires at At.
	On *Trigger
	// Pos is where the fault was written ("FILE:LINE") when ParseSchedule
	// read it, so that errors about it can say; "" for a generated fault.
	// It is not part of the text form.
	Pos string
}

// Schedule is a list of faults, in the order they were written.
type Schedule []Fault

// Where names fault i of s for an error: its position when it was parsed
// (or its number in the schedule), its kind and its time.
func (s Schedule) Where(i int) string {
	f := s[i]
	pos := f.Pos
	if pos == "" {
		pos = fmt.Sprintf("fault %d", i+1)
	}
	return fmt.Sprintf("%s: %s at %v", pos, f.Kind, f.At)
}

// Validate reports the first structural problem of f.
func (f Fault) Validate() error {
	_, err := f.check()
	return err
}

// check is Validate, also naming the field of the text form at fault.
func (f Fault) check() (field string, err error) {
	info, ok := kindInfos[f.Kind]
	if !ok {
		return "kind", fmt.Errorf("unknown fault %q (want one of %v)", f.Kind, FaultKinds)
	}
	if f.At < 0 {
		return "at", fmt.Errorf("negative duration")
	}
	if f.For < 0 {
		return "for", fmt.Errorf("negative duration")
	}
	if info.instant && f.For != 0 {
		return "for", fmt.Errorf("%s acts at once: drop \"for %v\"", f.Kind, f.For)
	}
	if err := f.checkTargets(info); err != nil {
		return "targets", err
	}
	if f.On != nil {
		if field, err := f.On.check(f.At); err != nil {
			return field, err
		}
	}
	for _, p := range faultParams {
		if !p.isSet(&f) {
			if p.kind == f.Kind && p.required {
				return p.key, fmt.Errorf("%s needs %s=<%s>", f.Kind, p.key, p.typ)
			}
			continue
		}
		if p.kind != f.Kind {
			return p.key, fmt.Errorf("%s belongs to %s only", p.key, p.kind)
		}
		if err := p.check(&f); err != nil {
			return p.key, err
		}
	}
	return "", nil
}

func (f Fault) checkTargets(info kindInfo) error {
	switch {
	case info.groups == -1 && len(f.Targets) != 0:
		return fmt.Errorf("%s takes no targets", f.Kind)
	case info.groups == 0 && len(f.Targets) < 2:
		return fmt.Errorf("%s needs two or more groups separated by %q", f.Kind, info.sep)
	case info.groups > 0 && len(f.Targets) != info.groups:
		if info.groups == 1 {
			return fmt.Errorf("%s needs one comma-separated target list", f.Kind)
		}
		return fmt.Errorf("%s needs %d groups separated by %q", f.Kind, info.groups, info.sep)
	}
	for gi, g := range f.Targets {
		if len(g) == 0 {
			return fmt.Errorf("empty target group")
		}
		for _, t := range g {
			if t == "" || !validTargetName(t) {
				return fmt.Errorf("invalid target name %q", t)
			}
			for _, other := range f.Targets[gi+1:] {
				if slices.Contains(other, t) {
					return bothSides(f.Kind, t)
				}
			}
		}
	}
	return nil
}

// bothSides is the error of a cut that puts one host on both of its sides.
func bothSides(k FaultKind, host string) error {
	return fmt.Errorf("%s puts %s on both sides: a host cannot be cut off from itself; name it on one side only", k, host)
}

func validTargetName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '*' || c == '/') {
			return false
		}
	}
	return true
}
