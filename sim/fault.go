package sim

import (
	"fmt"
	"time"
)

// FaultKind names what a fault does.
type FaultKind string

// The fault kinds. Targets name hosts, "*" for all, or names that a
// scenario's Resolver understands (such as "etcd-leader"), resolved when the
// fault fires.
const (
	// FaultCrash crashes the targets; with For set they restart after it.
	FaultCrash FaultKind = "crash"
	// FaultTorn crashes the targets mid-write: their last unsynced write is
	// torn. With For set they restart after it.
	FaultTorn FaultKind = "torn"
	// FaultWipe crashes the targets and loses their whole disk (amnesia).
	// With For set they restart, empty, after it.
	FaultWipe FaultKind = "wipe"
	// FaultRestart restarts crashed targets.
	FaultRestart FaultKind = "restart"
	// FaultPause freezes the targets, for For or until the end.
	FaultPause FaultKind = "pause"
	// FaultPartition splits the hosts into groups separated by '|'.
	FaultPartition FaultKind = "partition"
	// FaultOneWay cuts the links from the first group to the second ('>').
	FaultOneWay FaultKind = "oneway"
	// FaultIsolate cuts each target off from every other host.
	FaultIsolate FaultKind = "isolate"
	// FaultFlaky degrades every link touching the targets with Loss, Dup,
	// Delay and Reorder.
	FaultFlaky FaultKind = "flaky"
	// FaultHeal removes every cut and flaky overlay.
	FaultHeal FaultKind = "heal"
)

// faultShape says how many target groups a kind takes and how they print.
type faultShape struct {
	groups int    // exact count, or 0 for "two or more" (partition), -1 for none
	sep    string // between groups
}

var faultShapes = map[FaultKind]faultShape{
	FaultCrash: {1, ""}, FaultTorn: {1, ""}, FaultWipe: {1, ""}, FaultRestart: {1, ""},
	FaultPause: {1, ""}, FaultIsolate: {1, ""}, FaultFlaky: {1, ""},
	FaultPartition: {0, "|"}, FaultOneWay: {2, ">"}, FaultHeal: {-1, ""},
}

// FaultKinds lists every kind, in the order the documentation gives them.
var FaultKinds = []FaultKind{FaultCrash, FaultTorn, FaultWipe, FaultRestart, FaultPause,
	FaultPartition, FaultOneWay, FaultIsolate, FaultFlaky, FaultHeal}

// Fault is one entry of a fault schedule: data, not code.
type Fault struct {
	At      time.Duration // virtual time since the world began
	Kind    FaultKind
	Targets [][]string    // target groups; most kinds take exactly one
	For     time.Duration // how long until it is undone; 0 means never
	// Flaky parameters.
	Loss, Dup, Reorder float64
	Delay              time.Duration
}

// Schedule is a list of faults, in the order they were written.
type Schedule []Fault

// Validate reports the first structural problem of f.
func (f Fault) Validate() error {
	shape, ok := faultShapes[f.Kind]
	if !ok {
		return fmt.Errorf("unknown fault %q (want one of %v)", f.Kind, FaultKinds)
	}
	if f.At < 0 || f.For < 0 || f.Delay < 0 {
		return fmt.Errorf("negative duration")
	}
	switch {
	case shape.groups == -1 && len(f.Targets) != 0:
		return fmt.Errorf("%s takes no targets", f.Kind)
	case shape.groups == 0 && len(f.Targets) < 2:
		return fmt.Errorf("%s needs two or more groups separated by %q", f.Kind, shape.sep)
	case shape.groups > 0 && len(f.Targets) != shape.groups:
		if shape.groups == 1 {
			return fmt.Errorf("%s needs one comma-separated target list", f.Kind)
		}
		return fmt.Errorf("%s needs %d groups separated by %q", f.Kind, shape.groups, shape.sep)
	}
	for _, g := range f.Targets {
		if len(g) == 0 {
			return fmt.Errorf("empty target group")
		}
		for _, t := range g {
			if t == "" || !validTargetName(t) {
				return fmt.Errorf("invalid target name %q", t)
			}
		}
	}
	for _, p := range []float64{f.Loss, f.Dup, f.Reorder} {
		if p < 0 || p > 1 || p != p {
			return fmt.Errorf("probability %v outside [0,1]", p)
		}
	}
	if f.Kind != FaultFlaky && (f.Loss != 0 || f.Dup != 0 || f.Reorder != 0 || f.Delay != 0) {
		return fmt.Errorf("loss, dup, reorder and delay belong to flaky only")
	}
	return nil
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

// Resolver maps a target name that is not a host name to hosts, when the
// fault fires. It reports false for names it does not know.
type Resolver func(name string) ([]HostID, bool)

// AddResolver registers r; resolvers are asked in the order added.
func (w *World) AddResolver(r Resolver) { w.resolvers = append(w.resolvers, r) }

// Resolve maps a target name to hosts: a host name, "*" for every host, or a
// name a Resolver knows.
func (w *World) Resolve(name string) ([]HostID, error) {
	if name == "*" {
		all := make([]HostID, len(w.hosts))
		for i := range all {
			all[i] = HostID(i)
		}
		return all, nil
	}
	if id, ok := w.byName[name]; ok {
		return []HostID{id}, nil
	}
	for _, r := range w.resolvers {
		if ids, ok := r(name); ok {
			return ids, nil
		}
	}
	return nil, fmt.Errorf("sim: unknown fault target %q", name)
}

func (w *World) resolveGroup(g []string) ([]HostID, error) {
	var out []HostID
	for _, name := range g {
		ids, err := w.Resolve(name)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if !containsHost(out, id) {
				out = append(out, id)
			}
		}
	}
	return out, nil
}

// CheckTargets reports the first target of s that names no host and no
// registered resolver knows right now. Resolver names that depend on run
// time state (such as a current leader) should resolve to something, even
// empty, so that a schedule can be checked before it runs.
func (w *World) CheckTargets(s Schedule) error {
	for i, f := range s {
		for _, g := range f.Targets {
			if _, err := w.resolveGroup(g); err != nil {
				return fmt.Errorf("fault %d (%s at %v): %v", i+1, f.Kind, f.At, err)
			}
		}
	}
	return nil
}

// Apply schedules every fault of s on the world.
func (w *World) Apply(s Schedule) {
	for _, f := range s {
		f := f
		w.At(Time(f.At), string(f.Kind), func() { w.Inject(f) })
	}
}

// Inject performs f now. Targets that do not resolve are skipped, and the
// trace says so.
func (w *World) Inject(f Fault) {
	groups := make([][]HostID, 0, len(f.Targets))
	for _, g := range f.Targets {
		ids, err := w.resolveGroup(g)
		if err != nil {
			w.emit(KindFault, NoHost, NoHost, 0, "", string(f.Kind)+"-unresolved")
			return
		}
		groups = append(groups, ids)
	}
	var undo func()
	name := string(f.Kind)
	switch f.Kind {
	case FaultCrash, FaultTorn, FaultWipe:
		mode := map[FaultKind]crashMode{FaultCrash: crashPlain, FaultTorn: crashTorn, FaultWipe: crashWipe}[f.Kind]
		for _, id := range groups[0] {
			if w.hosts[id].Up() {
				w.emit(KindFault, id, NoHost, 0, "", name)
				w.hosts[id].crash(mode)
			}
		}
		undo = func() { w.restartAll(groups[0]) }
	case FaultRestart:
		w.restartAll(groups[0])
	case FaultPause:
		for _, id := range groups[0] {
			// Only a running host can freeze; a crashed one has nothing to
			// pause (and would never report a resume).
			if h := w.hosts[id]; h.Up() && !h.Paused() {
				w.emit(KindFault, id, NoHost, 0, "", name)
				h.Pause()
			}
		}
		undo = func() {
			for _, id := range groups[0] {
				if w.hosts[id].Paused() {
					w.emit(KindFault, id, NoHost, 0, "", "resume")
					w.hosts[id].Resume()
				}
			}
		}
	case FaultPartition, FaultIsolate, FaultOneWay:
		var cuts [][2]HostID
		switch f.Kind {
		case FaultPartition:
			cuts = w.net.Partition(groups)
		case FaultIsolate:
			for _, id := range groups[0] {
				cuts = append(cuts, w.net.Isolate(id)...)
			}
		default:
			for _, a := range groups[0] {
				for _, b := range groups[1] {
					if a != b {
						w.net.Cut(a, b)
						cuts = append(cuts, [2]HostID{a, b})
					}
				}
			}
		}
		w.emitGroups(name, groups)
		undo = func() {
			w.net.Restore(cuts)
			w.emitGroups(name+"-healed", groups)
		}
	case FaultFlaky:
		spec := LinkSpec{Loss: f.Loss, Dup: f.Dup, Reorder: f.Reorder, Latency: f.Delay, Jitter: f.Delay}
		id := w.net.addOverlay(groups[0], spec)
		w.emitGroups(name, groups)
		undo = func() {
			w.net.removeOverlay(id)
			w.emitGroups(name+"-healed", groups)
		}
	case FaultHeal:
		w.net.HealAll()
		w.emit(KindFault, NoHost, NoHost, 0, "", name)
	}
	if undo != nil && f.For > 0 {
		w.After(f.For, name+"-end", undo)
	}
}

func (w *World) emitGroups(name string, groups [][]HostID) {
	for gi, g := range groups {
		for _, id := range g {
			w.emit(KindFault, id, NoHost, uint64(gi), "", name)
		}
	}
}

func (w *World) restartAll(ids []HostID) {
	for _, id := range ids {
		if h := w.hosts[id]; h.state == hostDown {
			w.emit(KindFault, id, NoHost, 0, "", "restart")
			h.Restart()
		}
	}
}
