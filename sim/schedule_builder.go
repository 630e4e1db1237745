package sim

import (
	"fmt"
	"slices"
	"time"
)

// ScheduleBuilder writes a fault schedule in Go, one call per fault, in
// the order written: the same schedule the text form writes one line per
// fault (see ParseSchedule), so that what a test builds prints as a
// schedule file that `kubesim run --schedule` replays, and that file
// parses back to it. Each call takes the fault's time and what it cannot
// do without; what a fault may also have (how long it lasts, a flaky
// link's rates) goes on the FaultBuilder it returns, which chains on to
// the next fault:
//
//	s, err := sim.NewScheduleBuilder().
//		Crash(10*time.Second, "etcd-1").For(5*time.Second).
//		Partition(20*time.Second, []string{"etcd-1", "etcd-2"}, []string{"etcd-3"}).For(30*time.Second).
//		RestartProcess(40*time.Second, "kubelet", "node-3").
//		Flaky(60*time.Second, "*").Loss(0.2).Dup(0.05).For(10*time.Second).
//		Heal(90 * time.Second).
//		Schedule()
//
// Schedule validates every fault as ParseSchedule does and names the first
// that is wrong. The zero value is an empty builder.
type ScheduleBuilder struct {
	faults Schedule
}

// NewScheduleBuilder returns an empty builder.
func NewScheduleBuilder() *ScheduleBuilder { return &ScheduleBuilder{} }

// FaultBuilder refines the fault just added, and chains on: its
// ScheduleBuilder's methods add the next fault.
type FaultBuilder struct {
	*ScheduleBuilder
	i int
}

// Add appends a fault written as a Fault literal.
func (b *ScheduleBuilder) Add(f Fault) *FaultBuilder {
	b.faults = append(b.faults, f)
	return &FaultBuilder{ScheduleBuilder: b, i: len(b.faults) - 1}
}

func (b *ScheduleBuilder) add(at time.Duration, k FaultKind, groups ...[]string) *FaultBuilder {
	return b.Add(Fault{At: at, Kind: k, Targets: groups})
}

// targets is one target group, or none for no names (which Schedule
// refuses for a kind that needs targets).
func targets(names []string) [][]string {
	if len(names) == 0 {
		return nil
	}
	return [][]string{append([]string(nil), names...)}
}

// Crash crashes the targets at at (FaultCrash); For restarts them.
func (b *ScheduleBuilder) Crash(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultCrash, targets(targetNames)...)
}

// Torn crashes the targets mid-write (FaultTorn); For restarts them.
func (b *ScheduleBuilder) Torn(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultTorn, targets(targetNames)...)
}

// Wipe crashes the targets and loses their disks (FaultWipe); For
// restarts them empty.
func (b *ScheduleBuilder) Wipe(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultWipe, targets(targetNames)...)
}

// Restart restarts crashed targets (FaultRestart).
func (b *ScheduleBuilder) Restart(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultRestart, targets(targetNames)...)
}

// Pause freezes the targets (FaultPause), for For or until the end.
func (b *ScheduleBuilder) Pause(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultPause, targets(targetNames)...)
}

// Partition splits the hosts into the groups given, two or more
// (FaultPartition).
func (b *ScheduleBuilder) Partition(at time.Duration, groups ...[]string) *FaultBuilder {
	var gs [][]string
	for _, g := range groups {
		gs = append(gs, append([]string(nil), g...))
	}
	return b.add(at, FaultPartition, gs...)
}

// OneWay cuts the links from the hosts of from to those of to
// (FaultOneWay).
func (b *ScheduleBuilder) OneWay(at time.Duration, from, to []string) *FaultBuilder {
	return b.add(at, FaultOneWay, append([]string(nil), from...), append([]string(nil), to...))
}

// Isolate cuts each target off from every other host (FaultIsolate).
func (b *ScheduleBuilder) Isolate(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultIsolate, targets(targetNames)...)
}

// Flaky degrades every link touching the targets (FaultFlaky): set the
// rates with Loss, Dup, Reorder and Delay.
func (b *ScheduleBuilder) Flaky(at time.Duration, targetNames ...string) *FaultBuilder {
	return b.add(at, FaultFlaky, targets(targetNames)...)
}

// Heal removes every cut and flaky overlay (FaultHeal).
func (b *ScheduleBuilder) Heal(at time.Duration) *FaultBuilder { return b.add(at, FaultHeal) }

// RestartProcess restarts the named process on each target, the host
// staying up (FaultRestartProcess). It acts at once: no For.
func (b *ScheduleBuilder) RestartProcess(at time.Duration, process string, targetNames ...string) *FaultBuilder {
	fb := b.add(at, FaultRestartProcess, targets(targetNames)...)
	fb.fault().Process = process
	return fb
}

// ClockDrift makes the targets' clocks run at rate local seconds per
// second (FaultClockDrift), for For or until the end.
func (b *ScheduleBuilder) ClockDrift(at time.Duration, rate float64, targetNames ...string) *FaultBuilder {
	fb := b.add(at, FaultClockDrift, targets(targetNames)...)
	fb.fault().Rate = rate
	return fb
}

// ClockJump steps the targets' wall clocks by by, forward or back
// (FaultClockJump). It acts at once: no For.
func (b *ScheduleBuilder) ClockJump(at, by time.Duration, targetNames ...string) *FaultBuilder {
	fb := b.add(at, FaultClockJump, targets(targetNames)...)
	fb.fault().By = by
	return fb
}

// SlowDisk makes every fsync of the targets take fsync (FaultSlowDisk),
// for For or until the end.
func (b *ScheduleBuilder) SlowDisk(at, fsync time.Duration, targetNames ...string) *FaultBuilder {
	fb := b.add(at, FaultSlowDisk, targets(targetNames)...)
	fb.fault().Fsync = fsync
	return fb
}

func (fb *FaultBuilder) fault() *Fault { return &fb.faults[fb.i] }

// For undoes the fault after d: crashed hosts restart, a pause, cut or
// flaky link ends, a clock stops drifting, a disk speeds up.
func (fb *FaultBuilder) For(d time.Duration) *FaultBuilder { fb.fault().For = d; return fb }

// Loss sets a flaky link's probability of losing a message.
func (fb *FaultBuilder) Loss(p float64) *FaultBuilder { fb.fault().Loss = p; return fb }

// Dup sets a flaky link's probability of duplicating a message.
func (fb *FaultBuilder) Dup(p float64) *FaultBuilder { fb.fault().Dup = p; return fb }

// Reorder sets a flaky link's probability of reordering a message.
func (fb *FaultBuilder) Reorder(p float64) *FaultBuilder { fb.fault().Reorder = p; return fb }

// Delay sets a flaky link's extra delay (and jitter).
func (fb *FaultBuilder) Delay(d time.Duration) *FaultBuilder { fb.fault().Delay = d; return fb }

// On makes the fault wait for a moment (Fault.On): armed from its time, it
// fires after a trace event of kind event (as the timeline names it: raft.state,
// api.call, timer, ...) on one of hosts (any host without them). Refine
// the trigger with Match, Until, Within and Times:
//
//	sim.NewScheduleBuilder().
//		Crash(0, "etcd-leader").For(5*time.Second).
//		On("raft.state").Match("role", "leader").Within(500*time.Millisecond).Times(3)
func (fb *FaultBuilder) On(event string, hosts ...string) *FaultBuilder {
	fb.fault().On = &Trigger{Event: event, Hosts: slices.Clone(hosts)}
	return fb
}

// trigger is the fault's trigger, made empty if On was not called (which
// Schedule then refuses: it names no event).
func (fb *FaultBuilder) trigger() *Trigger {
	f := fb.fault()
	if f.On == nil {
		f.On = &Trigger{}
	}
	return f.On
}

// Match makes the trigger fire only on an event that shows key=value (see
// Trigger.Match).
func (fb *FaultBuilder) Match(key, value string) *FaultBuilder {
	t := fb.trigger()
	t.Match = append(t.Match, FieldMatch{Key: key, Value: value})
	return fb
}

// Until disarms the trigger at virtual time at.
func (fb *FaultBuilder) Until(at time.Duration) *FaultBuilder { fb.trigger().Until = at; return fb }

// Within lands the fault at a draw in [0, d] after the event.
func (fb *FaultBuilder) Within(d time.Duration) *FaultBuilder { fb.trigger().Within = d; return fb }

// Times lets the trigger fire n times (once without it).
func (fb *FaultBuilder) Times(n int) *FaultBuilder { fb.trigger().Times = n; return fb }

// Schedule returns the faults built, in the order written, or the first
// one that is wrong (Fault.Validate), named by its number, kind and time.
// Whether the targets name hosts of a world is for World.CheckTargets
// (PrepareSpec runs it) to say.
func (b *ScheduleBuilder) Schedule() (Schedule, error) {
	out := append(Schedule(nil), b.faults...)
	for i, f := range out {
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %v", out.Where(i), err)
		}
	}
	return out, nil
}

// MustSchedule is Schedule for a schedule written in a test or a
// package-level variable: it panics on a wrong fault.
func (b *ScheduleBuilder) MustSchedule() Schedule {
	s, err := b.Schedule()
	if err != nil {
		panic(err)
	}
	return s
}
