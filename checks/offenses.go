package checks

import (
	"fmt"

	"github.com/kubesim/kubesim/sim"
)

// earliestOffenses keeps the MaxOffenses offenses with the lowest event
// sequence numbers, whatever order they are found in, and counts them all.
// It suits checks that find some offenses only at Finish but attribute
// them to earlier events.
type earliestOffenses struct {
	count int
	list  []Offense // sorted by Seq
}

// add records an offense attributed to the event at (at, seq).
func (o *earliestOffenses) add(at sim.Time, seq uint64, format string, args ...any) {
	o.count++
	if len(o.list) == MaxOffenses && seq >= o.list[len(o.list)-1].Seq {
		return
	}
	off := Offense{At: at, Seq: seq, What: fmt.Sprintf(format, args...)}
	i := len(o.list)
	for i > 0 && o.list[i-1].Seq > seq {
		i--
	}
	o.list = append(o.list, Offense{})
	copy(o.list[i+1:], o.list[i:])
	o.list[i] = off
	if len(o.list) > MaxOffenses {
		o.list = o.list[:MaxOffenses]
	}
}

// result is the verdict: pass with okDetail when nothing was recorded.
func (o *earliestOffenses) result(name, okDetail string) Result {
	r := Recorder{Count: o.count, Offenses: o.list}
	return r.Result(name, okDetail)
}
