package checks

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// FaultWindows follows, from the trace's fault events alone (sim.KindFault),
// which fault windows are open: the one place where the checks read those
// events to know whether a fault is active, which hosts are down, and when
// the last fault healed. A check calls Observe with every fault event and
// asks it, rather than parsing fault events itself.
//
// What opens and closes a window is sim's to say (sim.ParseFaultEvent and
// sim.FaultKind): a crash (or torn write, or wipe) is open on its host
// until "restart", a pause until "resume" or a crash (the host restarts
// running, no resume is traced), a partition, isolation, one-way cut or
// flaky link until its "-healed" event or a "heal", a clock drift or slow
// disk until its "-healed" event. A fault that did nothing (unresolved or
// invalid) counts for nothing. A process restart (restart-process) leaves
// its host up and its other processes running: it opens no window and
// ends none. Any other event (a clock jump, a restart of a host that was
// not known to be down) is a fault that ended at once.
//
// The zero value is ready to use.
type FaultWindows struct {
	open  map[faultWindow]int // open windows, by host and class
	n     int                 // open windows in all
	quiet sim.Time            // when the last window closed, with none open since
	seen  bool                // a fault happened (other than a process restart)

	// The loose count of looselyNear, and the last fault event.
	unhealed int
	last     sim.Time
	faulted  bool
}

// faultWindow is a class of fault window on a host: "down" for the
// crashing kinds (one "restart" ends them all), otherwise the kind.
type faultWindow struct {
	host  sim.HostID
	class sim.FaultKind
}

// faultDown is the class of the windows of the crashing kinds.
const faultDown sim.FaultKind = "down"

// windowOf is the window a fault event of kind k on host opens or closes.
func windowOf(host sim.HostID, k sim.FaultKind) faultWindow {
	if k.CrashesHost() {
		return faultWindow{host, faultDown}
	}
	return faultWindow{host, k}
}

// Observe applies e if it is a fault event; it ignores any other event.
func (f *FaultWindows) Observe(e *sim.Event) {
	if e.Kind != sim.KindFault {
		return
	}
	ev := sim.ParseFaultEvent(e.Name)
	if ev.Unresolved {
		return
	}
	f.observeLoose(e.At, ev)
	if ev.Kind == sim.FaultRestartProcess {
		return
	}
	f.seen = true
	switch {
	case ev.Starts():
		if ev.Kind.CrashesHost() {
			f.close(faultWindow{e.Host, sim.FaultPause}, e.At)
		}
		f.begin(windowOf(e.Host, ev.Kind))
	case ev.Kind == sim.FaultHeal:
		// determinism: removals and a sum; the order cannot matter.
		for w, n := range f.open {
			if w.class.Network() {
				f.n -= n
				delete(f.open, w)
			}
		}
		f.close(faultWindow{}, e.At)
	case ev.Ends:
		f.close(windowOf(e.Host, ev.Kind), e.At)
	default:
		f.close(faultWindow{}, e.At)
	}
}

// observeLoose follows looselyNear's count and the last fault event.
func (f *FaultWindows) observeLoose(at sim.Time, ev sim.FaultEvent) {
	f.faulted, f.last = true, at
	switch {
	case ev.Kind == sim.FaultHeal:
		f.unhealed = 0
	case ev.Ends:
		f.unhealed = max(f.unhealed-1, 0)
	case ev.Starts():
		f.unhealed++
	}
}

func (f *FaultWindows) begin(w faultWindow) {
	if f.open == nil {
		f.open = map[faultWindow]int{}
	}
	f.open[w]++
	f.n++
}

// close closes window w (if open) at t.
func (f *FaultWindows) close(w faultWindow, t sim.Time) {
	if f.open[w] > 0 {
		f.open[w]--
		f.n--
		if f.open[w] == 0 {
			delete(f.open, w)
		}
	}
	if f.n == 0 {
		f.quiet = t
	}
}

// Active reports whether a fault window is open on some host.
func (f *FaultWindows) Active() bool { return f.n > 0 }

// QuietSince reports when the last fault window closed, with none open
// since (meaningful while Active is false); ok is false when no fault
// happened yet.
func (f *FaultWindows) QuietSince() (at sim.Time, ok bool) { return f.quiet, f.seen }

// Crashed reports whether host is down: crashed and not restarted.
func (f *FaultWindows) Crashed(host sim.HostID) bool {
	return f.open[faultWindow{host, faultDown}] > 0
}

// Paused reports whether host is frozen: paused and neither resumed nor
// crashed since.
func (f *FaultWindows) Paused(host sim.HostID) bool {
	return f.open[faultWindow{host, sim.FaultPause}] > 0
}

// Down reports whether host runs nothing: crashed or paused.
func (f *FaultWindows) Down(host sim.HostID) bool { return f.Crashed(host) || f.Paused(host) }

// looselyNear reports whether t is near a fault by a looser count of
// open windows, the one endpoints-converge and endpoints-timely judge by:
// every window opened counts one up, every event that closes one (on any
// host) one down, never below zero, and a heal brings it to zero, whatever
// it closed. t is near a fault while that count is above zero, or less
// than recovery after the last fault event that did something (a process
// restart included).
func (f *FaultWindows) looselyNear(t sim.Time, recovery time.Duration) bool {
	return f.unhealed > 0 || (f.faulted && t.Sub(f.last) < recovery)
}
