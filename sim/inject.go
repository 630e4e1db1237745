package sim

import (
	"fmt"
	"slices"
	"strings"
)

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
	example := "etcd-1"
	if len(w.hosts) > 0 {
		example = w.hosts[0].name
	}
	return nil, fmt.Errorf("unknown fault target %q: name a host (such as %s), \"*\" for every host, or a group the scenario defines", name, example)
}

// DeclareWithin says that role, a target name that resolves when a fault
// fires (such as the current leader), only ever names hosts that the target
// within names now. CheckTargets can then refuse, before the run, a cut
// that would put role on both of its sides whenever role names anyone:
// "partition etcd-leader|etcd".
func (w *World) DeclareWithin(role, within string) {
	w.within = append(w.within, [2]string{role, within})
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

// CheckTargets reports the first fault of s that the world cannot carry
// out, named by its position (Schedule.Where): a target that names no host
// and no registered resolver knows right now, a cut with one host on both
// sides, or a process that a target host does not run. Resolver names that
// depend on run time state (such as a current leader) should resolve to
// something, even empty, so that a schedule can be checked before it runs.
func (w *World) CheckTargets(s Schedule) error {
	for i, f := range s {
		if err := w.checkFault(f); err != nil {
			return fmt.Errorf("%s: %v", s.Where(i), err)
		}
	}
	return nil
}

func (w *World) checkFault(f Fault) error {
	if f.On != nil && len(f.On.Hosts) > 0 {
		if _, err := w.resolveGroup(f.On.Hosts); err != nil {
			return fmt.Errorf("trigger: %v", err)
		}
	}
	var earlier []HostID // the hosts of the groups before
	for _, g := range f.Targets {
		ids, err := w.resolveGroup(g)
		if err != nil {
			return err
		}
		for _, id := range ids {
			h := w.hosts[id]
			if containsHost(earlier, id) {
				return bothSides(f.Kind, h.name)
			}
			if f.Kind == FaultRestartProcess && !h.declares(f.Process) {
				has := "it has none"
				if len(h.processes) > 0 {
					has = "it has " + strings.Join(h.processes, ", ")
				}
				return fmt.Errorf("host %s runs no process %q that restarts alone (%s): name another process or host", h.name, f.Process, has)
			}
		}
		earlier = append(earlier, ids...)
	}
	return w.checkRolesApart(f)
}

// checkRolesApart refuses a cut one of whose sides names a role
// (DeclareWithin) that always lies within another side: whenever the role
// names a host when the fault fires, that host is on both sides.
func (w *World) checkRolesApart(f Fault) error {
	if len(f.Targets) < 2 {
		return nil
	}
	for gi, g := range f.Targets {
		for _, name := range g {
			for _, rw := range w.within {
				if rw[0] != name {
					continue
				}
				bound, err := w.Resolve(rw[1])
				if err != nil || len(bound) == 0 {
					continue
				}
				for gj, other := range f.Targets {
					if gj == gi {
						continue
					}
					hosts, err := w.resolveGroup(w.fixedNames(other))
					if err != nil {
						return err
					}
					if coversAll(hosts, bound) {
						return fmt.Errorf("%s puts %s on both sides whenever it names a host (%s is always one of %s): name it on one side only", f.Kind, name, name, rw[1])
					}
				}
			}
		}
	}
	return nil
}

// fixedNames returns the names of g that are not roles (DeclareWithin):
// those that name the same hosts now as when a fault fires.
func (w *World) fixedNames(g []string) []string {
	var out []string
	for _, name := range g {
		if !slices.ContainsFunc(w.within, func(rw [2]string) bool { return rw[0] == name }) {
			out = append(out, name)
		}
	}
	return out
}

// coversAll reports whether every host of sub is in hosts.
func coversAll(hosts, sub []HostID) bool {
	for _, h := range sub {
		if !containsHost(hosts, h) {
			return false
		}
	}
	return true
}

// Apply schedules every fault of s on the world: at its time, or, for a
// fault with a trigger (Fault.On), after each event that fires it.
func (w *World) Apply(s Schedule) {
	for _, f := range s {
		if f.On != nil {
			w.arm(f)
			continue
		}
		f := f
		w.At(Time(f.At), string(f.Kind), func() { w.Inject(f) })
	}
}

// Inject performs f now. Targets that do not resolve are skipped, and the
// trace says so. An invalid fault (see Fault.Validate; schedules are
// validated when parsed and before a run, so only a nemesis's own code can
// make one) does nothing, and the trace says so too: "<kind>-invalid".
func (w *World) Inject(f Fault) {
	if err := f.Validate(); err != nil {
		w.emit(KindFault, NoHost, NoHost, 0, "", string(f.Kind)+invalidSuffix)
		return
	}
	groups := make([][]HostID, 0, len(f.Targets))
	for _, g := range f.Targets {
		ids, err := w.resolveGroup(g)
		if err != nil {
			w.emit(KindFault, NoHost, NoHost, 0, "", string(f.Kind)+unresolvedSuffix)
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
					w.emit(KindFault, id, NoHost, 0, "", EventResume)
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
			w.emitGroups(name+healedSuffix, groups)
		}
	case FaultFlaky:
		spec := LinkSpec{Loss: f.Loss, Dup: f.Dup, Reorder: f.Reorder, Latency: f.Delay, Jitter: f.Delay}
		id := w.net.addOverlay(groups[0], spec)
		w.emitGroups(name, groups)
		undo = func() {
			w.net.removeOverlay(id)
			w.emitGroups(name+healedSuffix, groups)
		}
	case FaultHeal:
		w.net.HealAll()
		w.emit(KindFault, NoHost, NoHost, 0, "", name)
	case FaultClockDrift, FaultClockJump, FaultSlowDisk, FaultRestartProcess:
		undo = w.injectMachine(f, groups[0])
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
			w.emit(KindFault, id, NoHost, 0, "", string(FaultRestart))
			h.Restart()
		}
	}
}
