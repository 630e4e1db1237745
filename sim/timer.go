package sim

import "time"

// Timer runs a host callback after a virtual delay. A timer belongs to one
// incarnation of its host: after a crash it never fires again. Arming a timer
// again reuses its queue entry, so a periodic timer allocates nothing.
type Timer struct {
	host     *Host
	inc      uint64
	id       uint64
	fn       func()
	deadline Time // the host's monotonic reading it fires at, once armed
	e        entry
}

// NewTimer makes an unarmed timer that calls fn when it fires. The name is
// what the trace shows; pass a constant.
func (h *Host) NewTimer(name string, fn func()) *Timer {
	t := new(Timer)
	h.initTimer(t, name, fn)
	return t
}

// initTimer makes *t an unarmed timer, as NewTimer does, in memory the
// caller owns (a timer embedded in a larger record costs no allocation of
// its own).
func (h *Host) initTimer(t *Timer, name string, fn func()) {
	*t = Timer{host: h, inc: h.incarnation, id: h.w.newID(), fn: fn}
	t.e = entry{kind: entryTimer, timer: t, index: -1, name: name}
}

// After arms a new one-shot timer, d from now on the host's monotonic
// clock.
func (h *Host) After(d time.Duration, name string, fn func()) *Timer {
	t := h.NewTimer(name, fn)
	t.Reset(d)
	return t
}

// Reset (re)arms the timer to fire d from now, as the host's monotonic
// clock measures it (Host.Now): on a drifted host that is sooner or later
// in virtual time.
func (t *Timer) Reset(d time.Duration) {
	h := t.host
	if t.inc != h.incarnation || h.state != hostUp {
		return
	}
	if t.e.index >= 0 {
		h.w.queue.remove(&t.e)
	}
	t.deadline = h.Now().Add(d)
	h.w.schedule(&t.e, h.clock.virtualAt(t.deadline))
}

// Stop disarms the timer and reports whether it was armed.
func (t *Timer) Stop() bool {
	if t.e.index < 0 {
		return false
	}
	t.host.w.queue.remove(&t.e)
	return true
}

// Armed reports whether the timer is waiting to fire.
func (t *Timer) Armed() bool { return t.e.index >= 0 }

func (t *Timer) fire() {
	h := t.host
	if t.inc != h.incarnation || h.state != hostUp {
		return // the incarnation that armed it is gone
	}
	if h.paused {
		h.deferred = append(h.deferred, &t.e)
		return
	}
	h.w.emit(KindTimer, h.id, NoHost, t.id, "", t.e.name)
	t.fn()
}
