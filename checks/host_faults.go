package checks

import "github.com/kubesim/kubesim/sim"

// crashFault reports whether a kernel fault event's name takes its host
// down: a crash, a torn last write or a wiped disk each crash the host
// (sim.Inject). Such a crash also ends a pause: the host restarts running,
// and no "resume" is traced for it.
func crashFault(name string) bool {
	switch sim.FaultKind(name) {
	case sim.FaultCrash, sim.FaultTorn, sim.FaultWipe:
		return true
	}
	return false
}
