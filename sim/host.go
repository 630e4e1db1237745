package sim

import "slices"

// HostID indexes a host in its world.
type HostID int32

// NoHost marks an event that belongs to no host.
const NoHost HostID = -1

// HostSpec describes a host to add to a world.
type HostSpec struct {
	Name string
	// Role labels the host for fabric rules and target resolution, e.g.
	// "etcd" or "apiserver".
	Role string
	// Boot builds the host's processes. It runs when the world starts and
	// after every restart, and must rebuild all state from h.Disk(): nothing
	// volatile survives a crash.
	Boot func(h *Host)
	// Disk sets the disk's fsync latency; the zero value uses DefaultDiskSpec.
	Disk DiskSpec
	// Processes names the processes Boot starts that a restart-process
	// fault may restart alone (each registers with OnProcessRestart), so
	// that a schedule naming one is checked before the world runs.
	Processes []string
}

type hostState uint8

const (
	hostNew hostState = iota
	hostUp
	hostDown
)

// Handler receives messages delivered to a port.
type Handler func(m *Message)

// Host is a simulated machine: its processes (installed by Boot), a disk
// and an incarnation number that grows on every restart. A crash drops all
// volatile state; pause freezes it, like SIGSTOP or a long GC pause.
type Host struct {
	w           *World
	id          HostID
	name        string
	role        string
	boot        func(h *Host)
	state       hostState
	paused      bool
	incarnation uint64
	disk        *Disk
	ports       map[string]Handler
	deferred    []*entry // timers and deliveries that fired while paused
	onCrash     []func()
	exposed     map[string]any
	processes   []string          // declared by the spec
	restarts    map[string]func() // this incarnation's restart handlers
	clock       clock             // the machine's: it survives crashes
	// buggifyStreams are the host's streams of the BUGGIFY points, by
	// point, made when first asked (buggify.go).
	buggifyStreams []*Stream
}

func newHost(w *World, id HostID, spec HostSpec) *Host {
	h := &Host{w: w, id: id, name: spec.Name, role: spec.Role, boot: spec.Boot, processes: spec.Processes, clock: newClock()}
	h.disk = newDisk(h, spec.Disk)
	return h
}

// ID returns the host's index in its world.
func (h *Host) ID() HostID { return h.id }

// Name returns the host's unique name.
func (h *Host) Name() string { return h.name }

// Role returns the host's role label.
func (h *Host) Role() string { return h.role }

// World returns the world the host lives in.
func (h *Host) World() *World { return h.w }

// Disk returns the host's disk. It survives crashes; its unsynced writes do not.
func (h *Host) Disk() *Disk { return h.disk }

// Incarnation counts the host's boots, from 1. Continuations remember the
// incarnation that made them, so a stale one is recognised after a restart.
func (h *Host) Incarnation() uint64 { return h.incarnation }

// Up reports whether the host is running (paused hosts are up).
func (h *Host) Up() bool { return h.state == hostUp }

// Paused reports whether the host is frozen.
func (h *Host) Paused() bool { return h.paused }

// Rand returns the world stream called "<host name>/<name>".
func (h *Host) Rand(name string) *Stream { return h.w.Rand(h.name + "/" + name) }

// Emit adds a node event attributed to this host.
func (h *Host) Emit(d Data) { h.w.Emit(h.id, d) }

// Handle installs fn as the receiver of messages sent to port. Boot calls it;
// a crash removes every handler.
func (h *Host) Handle(port string, fn Handler) { h.ports[port] = fn }

// OnCrash registers fn to run when this incarnation crashes, so that a
// process can note what it lost (for metrics); it must not touch the disk.
func (h *Host) OnCrash(fn func()) { h.onCrash = append(h.onCrash, fn) }

// OnProcessRestart registers fn as the restart of the process name, which
// the host's spec declares (HostSpec.Processes): a restart-process fault
// calls it, like `systemctl restart`, while the host and its other
// processes run on. fn must drop the process's volatile state and start
// it again. Boot calls it; a crash forgets it, and the next Boot registers
// again. Naming an undeclared process is a bug of the host's wiring, and
// panics.
func (h *Host) OnProcessRestart(name string, fn func()) {
	if !h.declares(name) {
		panic("sim: host " + h.name + " registers a restart of process " + name + ", which its HostSpec.Processes does not declare")
	}
	h.restarts[name] = fn
}

// declares reports whether the spec names process.
func (h *Host) declares(process string) bool { return slices.Contains(h.processes, process) }

func (h *Host) processRestart(name string) func() { return h.restarts[name] }

// Expose publishes v under name for the scenario driving the world, like a
// process's debug endpoint: a scenario may ask a live member to report its
// state into the trace. A crash withdraws everything exposed. Checks never
// use it; they read the trace.
func (h *Host) Expose(name string, v any) { h.exposed[name] = v }

// Exposed returns what the current incarnation exposed under name, or nil
// when the host is down or exposed nothing.
func (h *Host) Exposed(name string) any {
	if h.state != hostUp {
		return nil
	}
	return h.exposed[name]
}

func (h *Host) start() {
	h.state = hostUp
	h.incarnation++
	h.exposed = make(map[string]any)
	h.ports = make(map[string]Handler)
	h.restarts = make(map[string]func())
	h.onCrash = nil
	if h.boot != nil {
		h.boot(h)
	}
}

// Crash stops the host at once: handlers, timers, pending RPC continuations
// and unsynced disk writes are lost; deferred work from a pause is dropped.
//
// It is the mechanism under a fault, not a fault: it traces nothing, so
// the checks, which read only the trace, and the timeline never see it, and
// nothing restarts it (a crash fault's For does).
// To crash a host from a scenario, a nemesis, a controller's test or a
// Spec's Build, inject a fault instead: World.Inject, a schedule
// (ScheduleBuilder, World.Apply) or simtest.Crash, which are traced.
func (h *Host) Crash() { h.crash(crashPlain) }

type crashMode uint8

const (
	crashPlain crashMode = iota
	crashTorn            // the last unsynced write is torn
	crashWipe            // the whole disk is lost
)

func (h *Host) crash(mode crashMode) {
	if h.state != hostUp {
		return
	}
	for _, fn := range h.onCrash {
		fn()
	}
	h.state = hostDown
	h.paused = false
	h.deferred = nil
	h.ports = nil
	h.onCrash = nil
	h.exposed = nil
	h.restarts = nil
	switch mode {
	case crashTorn:
		h.disk.crash(true)
	case crashWipe:
		h.disk.crash(false)
		h.disk.wipe()
	default:
		h.disk.crash(false)
	}
}

// Restart boots a crashed host again from its durable disk.
//
// It is the mechanism under a fault, not a fault: it traces nothing, so
// the checks, which read only the trace, and the timeline never see it.
// To restart a host from a scenario, a nemesis, a controller's test or a
// Spec's Build, inject a fault instead: World.Inject, a schedule
// (ScheduleBuilder, World.Apply) or simtest.Restart, which are traced.
func (h *Host) Restart() {
	if h.state != hostDown {
		return
	}
	h.start()
}

// Pause freezes the host: its timers and deliveries wait until Resume.
//
// It is the mechanism under a fault, not a fault: it traces nothing, so
// the checks, which read only the trace, and the timeline never see it, and
// nothing resumes it (a pause fault's For does).
// To pause a host from a scenario, a nemesis, a controller's test or a
// Spec's Build, inject a fault instead: World.Inject, a schedule
// (ScheduleBuilder, World.Apply) or simtest.Pause, which are traced.
func (h *Host) Pause() {
	if h.state == hostUp {
		h.paused = true
	}
}

// Resume thaws a paused host and fires what waited, in its original order.
func (h *Host) Resume() {
	if !h.paused {
		return
	}
	h.paused = false
	waiting := h.deferred
	h.deferred = nil
	for _, e := range waiting {
		h.w.schedule(e, h.w.now)
	}
}
