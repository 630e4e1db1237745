package sim

import "slices"

// injectMachine performs a fault on the targets' machines rather than on
// the network: their clocks, their disks, one of their processes. It
// returns the undo of a fault that lasts.
func (w *World) injectMachine(f Fault, ids []HostID) (undo func()) {
	name := string(f.Kind)
	switch f.Kind {
	case FaultClockDrift:
		// The clock is the machine's: it drifts whether the host is up,
		// down or frozen.
		drift := &clockDrift{rate: f.Rate}
		return w.hostWindow(name, ids, &FaultDetail{Rate: f.Rate},
			func(h *Host) { h.startDrift(drift) }, func(h *Host) { h.endDrift(drift) })
	case FaultClockJump:
		for _, id := range ids {
			w.setEvent(KindFault, id, NoHost, 0, "", name, &FaultDetail{By: f.By})
			w.hosts[id].stepWallClock(f.By)
		}
	case FaultSlowDisk:
		slow := &slowDisk{fsync: f.Fsync}
		return w.hostWindow(name, ids, &FaultDetail{Fsync: f.Fsync},
			func(h *Host) { h.disk.slow = append(h.disk.slow, slow) },
			func(h *Host) {
				h.disk.slow = slices.DeleteFunc(h.disk.slow, func(s *slowDisk) bool { return s == slow })
			})
	case FaultRestartProcess:
		for _, id := range ids {
			// A crashed host runs nothing, and a frozen one cannot act.
			if h := w.hosts[id]; h.Up() && !h.Paused() {
				if restart := h.processRestart(f.Process); restart != nil {
					w.setEvent(KindFault, id, NoHost, 0, "", name, &FaultDetail{Process: f.Process})
					restart()
				}
			}
		}
	}
	return nil
}

// hostWindow starts a fault window on each host, tracing name with its
// detail, and returns the undo that ends it, tracing name-healed.
func (w *World) hostWindow(name string, ids []HostID, detail *FaultDetail, start, end func(h *Host)) func() {
	for _, id := range ids {
		w.setEvent(KindFault, id, NoHost, 0, "", name, detail)
		start(w.hosts[id])
	}
	return func() {
		for _, id := range ids {
			end(w.hosts[id])
			w.emit(KindFault, id, NoHost, 0, "", name+healedSuffix)
		}
	}
}
