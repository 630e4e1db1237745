// Package periodic runs the nodes' periodic jobs (the backup job, the
// compactor): work that repeats on a fixed interval until a virtual
// deadline, on one timer of its host.
package periodic

import (
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Every runs fn on h every interval, the first time one interval from
// now, until the virtual time until (forever when until is 0): a timer
// named name, re-armed before each run, as a CronJob's schedule is. It
// does not survive a crash of h; a Boot that calls it again on restart
// starts afresh.
func Every(h *sim.Host, name string, interval, until time.Duration, fn func()) {
	var tick *sim.Timer
	tick = h.NewTimer(name, func() {
		if until > 0 && h.Now() >= sim.Time(until) {
			return
		}
		tick.Reset(interval)
		fn()
	})
	tick.Reset(interval)
}
