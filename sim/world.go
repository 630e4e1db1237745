package sim

import (
	"fmt"
	"time"
)

// World is one simulated universe: a clock, an event queue, seeded random
// streams, hosts, a network and a trace. It is not safe for concurrent use;
// run independent worlds in parallel instead.
type World struct {
	seed    uint64
	now     Time
	seq     uint64
	queue   eventQueue
	hosts   []*Host
	byName  map[string]HostID
	net     *Network
	trace   *Trace
	streams map[string]*Stream
	events  uint64
	nextID  uint64
	stopped bool
	booted  bool

	resolvers []Resolver
	within    [][2]string // role, the target it always lies within (DeclareWithin)
	triggers  *triggers   // the armed triggered faults; nil until one is
	buggify   *buggifyRun // the run's BUGGIFY (buggify.go); nil when off

	freeDeliveries []*delivery // recycled message deliveries
	freeFsyncs     []*fsyncOp  // recycled fsync completions
}

// NewWorld returns an empty world whose every random choice derives from seed.
func NewWorld(seed uint64) *World {
	w := &World{
		seed:    seed,
		byName:  make(map[string]HostID),
		trace:   newTrace(),
		streams: make(map[string]*Stream),
	}
	w.net = newNetwork(w)
	return w
}

// Seed returns the seed the world was made from.
func (w *World) Seed() uint64 { return w.seed }

// Now returns the current virtual time.
func (w *World) Now() Time { return w.now }

// Trace returns the world's event stream.
func (w *World) Trace() *Trace { return w.trace }

// Network returns the world's network fabric.
func (w *World) Network() *Network { return w.net }

// Events returns how many queue events have fired so far.
func (w *World) Events() uint64 { return w.events }

// Subscribe is shorthand for w.Trace().Subscribe(fn).
func (w *World) Subscribe(fn Subscriber) { w.trace.Subscribe(fn) }

// Emit adds a node event to the trace, attributed to host h (or NoHost).
func (w *World) Emit(h HostID, d Data) {
	w.setEvent(KindNode, h, NoHost, 0, "", "", d)
}

func (w *World) emit(kind Kind, host, peer HostID, id uint64, port, name string) {
	w.setEvent(kind, host, peer, id, port, name, nil)
}

// setEvent fills the trace's reusable event field by field (cheaper than
// copying a whole Event literal, which costs a bulk write barrier while the
// garbage collector runs) and emits it.
func (w *World) setEvent(kind Kind, host, peer HostID, id uint64, port, name string, d Data) {
	ev := &w.trace.ev
	ev.At, ev.Kind, ev.Host, ev.Peer, ev.ID = w.now, kind, host, peer, id
	ev.Port, ev.Name, ev.Data = port, name, d
	w.trace.emit(ev)
}

// newID returns a fresh identity for a message or timer.
func (w *World) newID() uint64 {
	w.nextID++
	return w.nextID
}

func (w *World) schedule(e *entry, at Time) {
	if at < w.now {
		at = w.now
	}
	w.seq++
	e.at, e.seq = at, w.seq
	w.queue.push(e)
}

// At runs fn at virtual time t (or now, if t has passed). World callbacks
// belong to no host, so crashes do not cancel them; the fault scheduler and
// scenario drivers use them.
func (w *World) At(t Time, name string, fn func()) {
	w.schedule(&entry{kind: entryFunc, fn: fn, name: name}, t)
}

// After runs fn after virtual duration d.
func (w *World) After(d time.Duration, name string, fn func()) { w.At(w.now.Add(d), name, fn) }

// Stop makes Run return after the current event.
func (w *World) Stop() { w.stopped = true }

// boot starts every host that has not run yet.
func (w *World) boot() {
	if w.booted {
		return
	}
	w.booted = true
	for _, h := range w.hosts {
		if h.state == hostNew {
			h.start()
		}
	}
}

// Step fires the next event, if any, and reports whether one fired.
func (w *World) Step() bool {
	w.boot()
	if w.queue.Len() == 0 {
		return false
	}
	w.fire(w.queue.pop())
	return true
}

// Run fires events in order until the queue is empty, the next event is
// after until, or Stop is called. The clock ends at until unless stopped.
func (w *World) Run(until Time) {
	w.boot()
	w.stopped = false
	for w.queue.Len() > 0 && !w.stopped {
		if w.queue.peek().at > until {
			break
		}
		w.fire(w.queue.pop())
	}
	if !w.stopped && w.now < until {
		w.now = until
	}
}

// RunFor runs for virtual duration d from now.
func (w *World) RunFor(d time.Duration) { w.Run(w.now.Add(d)) }

func (w *World) fire(e *entry) {
	w.now = e.at
	w.events++
	switch e.kind {
	case entryTimer:
		e.timer.fire()
	case entryDeliver:
		w.net.deliver(e.dv)
	case entryFunc:
		e.fn()
	case entryFsync:
		e.fsync.fire()
	}
}

// Host returns the host with the given id.
func (w *World) Host(id HostID) *Host { return w.hosts[id] }

// Hosts returns every host in the order they were added.
func (w *World) Hosts() []*Host { return w.hosts }

// HostByName looks a host up by its name.
func (w *World) HostByName(name string) (*Host, bool) {
	id, ok := w.byName[name]
	if !ok {
		return nil, false
	}
	return w.hosts[id], true
}

// HostName returns the name of id, or "-" for NoHost.
func (w *World) HostName(id HostID) string {
	if id < 0 || int(id) >= len(w.hosts) {
		return "-"
	}
	return w.hosts[id].name
}

// AddHost creates a host. Boot is called when the world starts and again on
// every restart; it must rebuild the host's processes from its disk.
func (w *World) AddHost(spec HostSpec) (*Host, error) {
	if spec.Name == "" || spec.Name == "*" {
		return nil, fmt.Errorf("sim: invalid host name %q", spec.Name)
	}
	if _, dup := w.byName[spec.Name]; dup {
		return nil, fmt.Errorf("sim: duplicate host name %q", spec.Name)
	}
	h := newHost(w, HostID(len(w.hosts)), spec)
	w.hosts = append(w.hosts, h)
	w.byName[spec.Name] = h.id
	w.net.grow(len(w.hosts))
	if w.booted {
		h.start()
	}
	return h, nil
}

// MustAddHost is AddHost for scenario code whose names are known to be valid.
func (w *World) MustAddHost(spec HostSpec) *Host {
	h, err := w.AddHost(spec)
	if err != nil {
		panic(err)
	}
	return h
}
