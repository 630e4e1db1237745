package reports

import (
	"fmt"
	"sync"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// Interval is a span of virtual time, in seconds since the world began.
type Interval struct{ From, To float64 }

// MemberTimeline is what happened to one etcd member during a run.
type MemberTimeline struct {
	Name   string
	Down   []Interval // crashed (crash, torn or wipe) until restarted
	Paused []Interval
	Leader []Interval // the member believed it was the Raft leader
}

// WriteMark is one client write that ended: at its return, whether it
// succeeded (a failed or unknown outcome is not OK).
type WriteMark struct {
	At float64
	OK bool
}

// Timeline is one run, seen from the trace: members up and down, who led,
// when the network was cut, and how each write ended.
type Timeline struct {
	Members []MemberTimeline
	// Partitions are the windows during which some partition, isolation or
	// one-way cut was in effect.
	Partitions []Interval
	Writes     []WriteMark
	End        float64 // seconds
	// TraceHash is the re-run's determinism fingerprint (RecordTimeline).
	TraceHash string
}

// TimelineRecorder is a trace subscriber that builds a Timeline.
type TimelineRecorder struct {
	w       *sim.World
	byHost  map[sim.HostID]int
	byName  map[string]int
	tl      Timeline
	down    []float64 // open intervals' start, or -1
	paused  []float64
	leading []float64
	calls   map[writeKey]bool
	cuts    int // partition faults in effect
	cutFrom float64
	last    struct {
		at   sim.Time
		name string
	}
}

type writeKey struct {
	client string
	op     uint64
}

// NewTimelineRecorder records the named members of w's cluster; attach it
// with w.Subscribe(rec.Observe) before the world runs.
func NewTimelineRecorder(w *sim.World, members []string) *TimelineRecorder {
	t := &TimelineRecorder{w: w, byHost: map[sim.HostID]int{}, byName: map[string]int{}, calls: map[writeKey]bool{}}
	for i, m := range members {
		t.tl.Members = append(t.tl.Members, MemberTimeline{Name: m})
		t.byName[m] = i
		if h, ok := w.HostByName(m); ok {
			t.byHost[h.ID()] = i
		}
		t.down = append(t.down, -1)
		t.paused = append(t.paused, -1)
		t.leading = append(t.leading, -1)
	}
	return t
}

func secs(t sim.Time) float64 { return float64(t) / 1e9 }

// Observe consumes one trace event.
func (t *TimelineRecorder) Observe(e *sim.Event) {
	now := secs(e.At)
	switch e.Kind {
	case sim.KindFault:
		t.fault(e, now)
	case sim.KindNode:
		switch d := e.Data.(type) {
		case *etcdtrace.RaftState:
			i, ok := t.byName[d.Member]
			if !ok {
				return
			}
			if d.Role == "leader" {
				open(&t.leading[i], now)
			} else {
				closeIv(&t.leading[i], now, &t.tl.Members[i].Leader)
			}
		case *etcdtrace.Call:
			if d.Kind.Writes() {
				t.calls[writeKey{d.Client, d.Op}] = true
			}
		case *etcdtrace.Return:
			k := writeKey{d.Client, d.Op}
			if t.calls[k] {
				delete(t.calls, k)
				t.tl.Writes = append(t.tl.Writes, WriteMark{At: now, OK: d.Outcome == etcdtrace.OutcomeOK})
			}
		}
	}
}

func (t *TimelineRecorder) fault(e *sim.Event, now float64) {
	// A fault on several hosts emits one event per host at the same time:
	// a burst counts once for the partition windows.
	burst := e.At == t.last.at && e.Name == t.last.name
	t.last.at, t.last.name = e.At, e.Name
	i, member := t.byHost[e.Host]
	ev := sim.ParseFaultEvent(e.Name)
	switch {
	case ev.Unresolved:
	case ev.Kind.CrashesHost() && !ev.Ends:
		if member {
			open(&t.down[i], now)
			closeIv(&t.leading[i], now, &t.tl.Members[i].Leader)
			closeIv(&t.paused[i], now, &t.tl.Members[i].Paused)
		}
	case ev.Kind.CrashesHost(): // restarted
		if member {
			closeIv(&t.down[i], now, &t.tl.Members[i].Down)
		}
	case ev.Kind == sim.FaultPause && !ev.Ends:
		if member {
			open(&t.paused[i], now)
		}
	case ev.Kind == sim.FaultPause:
		if member {
			closeIv(&t.paused[i], now, &t.tl.Members[i].Paused)
		}
	case ev.Kind.CutsLinks() && !ev.Ends:
		if !burst {
			if t.cuts == 0 {
				t.cutFrom = now
			}
			t.cuts++
		}
	case ev.Kind.CutsLinks():
		if !burst && t.cuts > 0 {
			t.cuts--
			if t.cuts == 0 {
				t.tl.Partitions = append(t.tl.Partitions, Interval{t.cutFrom, now})
			}
		}
	case ev.Kind == sim.FaultHeal:
		if t.cuts > 0 {
			t.cuts = 0
			t.tl.Partitions = append(t.tl.Partitions, Interval{t.cutFrom, now})
		}
	}
}

func open(from *float64, now float64) {
	if *from < 0 {
		*from = now
	}
}

func closeIv(from *float64, now float64, into *[]Interval) {
	if *from >= 0 {
		*into = append(*into, Interval{*from, now})
		*from = -1
	}
}

// Finish closes every open interval at end and returns the timeline.
func (t *TimelineRecorder) Finish(end sim.Time) *Timeline {
	now := secs(end)
	for i := range t.tl.Members {
		m := &t.tl.Members[i]
		closeIv(&t.down[i], now, &m.Down)
		closeIv(&t.paused[i], now, &m.Paused)
		closeIv(&t.leading[i], now, &m.Leader)
	}
	if t.cuts > 0 {
		t.tl.Partitions = append(t.tl.Partitions, Interval{t.cutFrom, now})
		t.cuts = 0
	}
	t.tl.End = now
	tl := t.tl
	return &tl
}

// ReplayOptions are the options that re-run r: its scenario, member count,
// seed, ablations, fault profile (parsed back from its text form), virtual
// duration and, for a run with an explicit schedule, that schedule (parsed
// back from the result's text form, which must have the recorded hash).
// Without either the scenario draws its own faults from the same seed, so
// the schedule is the same.
func ReplayOptions(r scenarios.Result) (scenarios.Options, error) {
	o := scenarios.Options{
		Scenario:  r.Scenario,
		Members:   r.Members,
		Seed:      r.Seed,
		Ablations: r.Ablations,
		Duration:  r.RunDuration(),
	}
	if r.Profile != nil {
		p, err := nemesis.ParseProfile(r.Profile.String())
		if err != nil {
			return o, err
		}
		o.Profile = &p
	}
	if r.ScheduleHash != "" {
		s, err := sim.ParseSchedule("the result's schedule", r.Schedule)
		if err != nil {
			return o, err
		}
		if s == nil {
			s = sim.Schedule{}
		}
		if h := scenarios.ScheduleHash(s); h != r.ScheduleHash {
			return o, fmt.Errorf("the result's schedule has hash %s, not the recorded %s", h, r.ScheduleHash)
		}
		o.Schedule = s
	}
	return o, nil
}

// RecordTimeline re-runs r deterministically with a TimelineRecorder
// attached and returns its timeline. The re-run's trace hash is in
// Timeline.TraceHash; it differs from r.TraceHash only if the build
// changed since r ran.
func RecordTimeline(r scenarios.Result) (*Timeline, error) {
	opts, err := ReplayOptions(r)
	if err != nil {
		return nil, err
	}
	p, err := scenarios.Prepare(opts)
	if err != nil {
		return nil, err
	}
	rec := NewTimelineRecorder(p.World, p.Cluster.Members)
	p.World.Subscribe(rec.Observe)
	res, err := p.Run()
	if err != nil {
		return nil, err
	}
	tl := rec.Finish(p.World.Now())
	tl.TraceHash = res.TraceHash
	return tl, nil
}

// TimelineRun picks the run whose timeline the report draws: the first
// failing run if any, else the first run of the largest group.
func (s *Set) TimelineRun() *scenarios.Result {
	for i := range s.Results {
		if !s.Results[i].OK {
			return &s.Results[i]
		}
	}
	var best *Group
	for _, g := range s.Groups() {
		if best == nil || len(g.Runs) > len(best.Runs) {
			best = g
		}
	}
	if best == nil {
		return nil
	}
	return best.Runs[0]
}

type timelineCache struct {
	once sync.Once
	run  *scenarios.Result
	tl   *Timeline
	err  error
}

// Timeline re-runs the run TimelineRun picks, once, and returns its
// timeline (and the run). Like the rest of Set, it is not safe for
// concurrent use.
func (s *Set) Timeline() (*Timeline, *scenarios.Result, error) {
	if s.timeline == nil {
		s.timeline = &timelineCache{}
	}
	c := s.timeline
	c.once.Do(func() {
		c.run = s.TimelineRun()
		if c.run == nil {
			c.err = fmt.Errorf("no run to draw")
			return
		}
		c.tl, c.err = RecordTimeline(*c.run)
	})
	return c.tl, c.run, c.err
}
