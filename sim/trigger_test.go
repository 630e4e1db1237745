package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// roleEvent is a node event that says a role changed, as raft.state does.
type roleEvent struct {
	Role string
	Term int
}

func (roleEvent) TraceKind() string { return "toy.state" }
func (e roleEvent) AppendText(b []byte) []byte {
	return sim.Text(b).Str("role", e.Role).Int("term", int64(e.Term)).Trimmed()
}

// firing is one fault event a trigger caused: its time and host.
type firing struct {
	at   sim.Time
	host string
}

// triggerWorld runs two hosts, a and b, for 10 s: host h emits a
// toy.state event with role r at each (at, h, r) of events, and the
// schedule text is applied. It returns the fault events named fault.
func triggerWorld(t *testing.T, seed uint64, text, fault string, events []toyAt) ([]firing, uint64) {
	t.Helper()
	w := sim.NewWorld(seed)
	w.MustAddHost(sim.HostSpec{Name: "a", Boot: func(*sim.Host) {}})
	w.MustAddHost(sim.HostSpec{Name: "b", Boot: func(*sim.Host) {}})
	s, err := sim.ParseSchedule("sched.txt", text)
	require.NoError(t, err)
	require.NoError(t, w.CheckTargets(s))
	for i, ev := range events {
		h, _ := w.HostByName(ev.host)
		w.At(sim.Time(ev.at), "emit", func() { w.Emit(h.ID(), roleEvent{Role: ev.role, Term: i + 1}) })
	}
	var got []firing
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault && e.Name == fault {
			got = append(got, firing{e.At, w.HostName(e.Host)})
		}
	})
	w.Apply(s)
	w.Run(sim.Time(10 * time.Second))
	return got, w.Trace().Hash()
}

type toyAt struct {
	at   time.Duration
	host string
	role string
}

// TestTriggerFiresWithinItsWindow: a triggered fault lands within its
// window after each event it matches (its host and every field), never
// before it is armed or after it disarms, and no more often than it may.
func TestTriggerFiresWithinItsWindow(t *testing.T) {
	events := []toyAt{
		{500 * time.Millisecond, "a", "leader"}, // before it is armed
		{1 * time.Second, "a", "follower"},      // another role
		{2 * time.Second, "b", "leader"},        // another host
		{3 * time.Second, "a", "leader"},        // fires
		{5 * time.Second, "a", "leader"},        // fires
		{7 * time.Second, "a", "leader"},        // fires no more: times 2
	}
	for seed := uint64(1); seed <= 20; seed++ {
		got, _ := triggerWorld(t, seed, "800ms on toy.state a role=leader within 400ms times 2: pause b for 100ms\n", "pause", events)
		require.Len(t, got, 2, "seed %d: %v", seed, got)
		for i, at := range []time.Duration{3 * time.Second, 5 * time.Second} {
			assert.Equal(t, "b", got[i].host)
			assert.GreaterOrEqual(t, got[i].at, sim.Time(at), "seed %d: not before the event", seed)
			assert.LessOrEqual(t, got[i].at, sim.Time(at+400*time.Millisecond), "seed %d: within 400ms of the event", seed)
		}
	}
	got, _ := triggerWorld(t, 1, "0s on toy.state role=lead* term=4 times 5: isolate a for 100ms\n", "isolate", events)
	assert.Equal(t, []firing{{sim.Time(3 * time.Second), "a"}}, got, "every field matches, '*' any run; no window: at once")
	got, _ = triggerWorld(t, 1, "0s on toy.state a,b role=leader until 3s times 9: isolate a for 100ms\n", "isolate", events)
	assert.Equal(t, []firing{{sim.Time(500 * time.Millisecond), "a"}, {sim.Time(2 * time.Second), "a"}}, got, "disarmed at 3s")
	got, _ = triggerWorld(t, 1, "0s on toy.state a role=leader edge times 9: isolate a for 100ms\n", "isolate", events)
	assert.Equal(t, []firing{{sim.Time(500 * time.Millisecond), "a"}, {sim.Time(3 * time.Second), "a"}}, got, "edge: when a becomes leader, not while it stays one")
	got, _ = triggerWorld(t, 1, "0s on toy.* b: isolate a for 100ms\n", "isolate", events)
	assert.Equal(t, []firing{{sim.Time(2 * time.Second), "a"}}, got, "a glob kind, on host b, once by default")
	got, _ = triggerWorld(t, 1, "0s on raft.state: isolate a for 100ms\n0s on toy.state role=candidate: isolate a\n", "isolate", events)
	assert.Empty(t, got, "no event of the kind, no field that matches")
}

// TestTriggerOnKernelEvents: a kernel event shows peer=, port= and name=
// (a timer's name here).
func TestTriggerOnKernelEvents(t *testing.T) {
	w := sim.NewWorld(1)
	a := w.MustAddHost(sim.HostSpec{Name: "a", Boot: func(h *sim.Host) {
		h.After(time.Second, "tick", func() {})
		h.After(2*time.Second, "reinit", func() {})
	}})
	w.MustAddHost(sim.HostSpec{Name: "b", Boot: func(*sim.Host) {}})
	s := sim.NewScheduleBuilder().Pause(0, "b").For(time.Second).On("timer", "a").Match("name", "reinit").MustSchedule()
	require.NoError(t, w.CheckTargets(s))
	w.Apply(s)
	var paused []sim.Time
	w.Subscribe(func(e *sim.Event) {
		if e.Kind == sim.KindFault && e.Name == "pause" {
			paused = append(paused, e.At)
		}
	})
	w.Run(sim.Time(5 * time.Second))
	assert.Equal(t, []sim.Time{sim.Time(2 * time.Second)}, paused)
	assert.True(t, a.Up())
}

// TestTriggerDeterministic: the same seed gives the same firings and the
// same trace, twice; the delays come from the trigger's own stream, so
// another seed draws others, and arming a trigger shifts no other stream.
func TestTriggerDeterministic(t *testing.T) {
	var events []toyAt
	for i := 1; i <= 9; i++ {
		events = append(events, toyAt{time.Duration(i) * time.Second, "a", "leader"})
	}
	text := "0s on toy.state role=leader within 900ms times 9: pause b for 10ms\n"
	one, h1 := triggerWorld(t, 7, text, "pause", events)
	two, h2 := triggerWorld(t, 7, text, "pause", events)
	require.Len(t, one, 9)
	assert.Equal(t, one, two)
	assert.Equal(t, h1, h2)
	other, h3 := triggerWorld(t, 8, text, "pause", events)
	assert.NotEqual(t, one, other, "another seed, other delays")
	assert.NotEqual(t, h1, h3)

	w := sim.NewWorld(7)
	a := w.MustAddHost(sim.HostSpec{Name: "a", Boot: func(*sim.Host) {}})
	w.Apply(sim.NewScheduleBuilder().Crash(0, "a").On("toy.state").Within(time.Second).MustSchedule())
	w.At(sim.Time(time.Second), "emit", func() { w.Emit(a.ID(), roleEvent{Role: "leader"}) })
	w.Run(sim.Time(3 * time.Second))
	require.False(t, a.Up(), "the trigger fired")
	assert.Equal(t, sim.NewStream(7, "scenario/faults").Uint64(), w.Rand("scenario/faults").Uint64(), "no other stream moved")
}

// TestCheckTargetsRefusesTriggerHosts: a trigger's hosts must name hosts
// too, before the run.
func TestCheckTargetsRefusesTriggerHosts(t *testing.T) {
	w, _, _, _, _ := twoHosts(t)
	s, err := sim.ParseSchedule("sched.txt", "\n1s on raft.state nobody role=leader: crash a\n")
	require.NoError(t, err)
	assert.ErrorContains(t, w.CheckTargets(s), `sched.txt:2: crash at 1s: trigger: unknown fault target "nobody"`)
}

// TestScheduleBuilderTrigger: the builder writes what the text form
// writes, and refuses a trigger without its event.
func TestScheduleBuilderTrigger(t *testing.T) {
	built := sim.NewScheduleBuilder().
		Crash(10*time.Second, "etcd-leader").For(5*time.Second).
		On("raft.state", "etcd-1", "etcd-2").Match("role", "leader").Until(time.Minute).Within(500 * time.Millisecond).Times(3).
		MustSchedule()
	want := "10s on raft.state etcd-1,etcd-2 role=leader until 1m0s within 500ms times 3: crash etcd-leader for 5s"
	assert.Equal(t, want, built[0].String())
	parsed, err := sim.ParseSchedule("s", want)
	require.NoError(t, err)
	parsed[0].Pos = ""
	assert.Equal(t, built, parsed)

	_, err = sim.NewScheduleBuilder().Crash(0, "a").Within(time.Second).Schedule()
	assert.ErrorContains(t, err, `fault 1: crash at 0s: missing event after "on"`)
}

func TestParseTriggerForms(t *testing.T) {
	s, err := sim.ParseSchedule("s", "on raft.state role=leader within 500ms: crash etcd-leader for 5s\n"+
		"20s on etcd.member change=add-learner err=x:y times 2 edge : pause etcd-1\n"+
		"30s on timer apiservers name=apiserver-cache-reinit: heal\n")
	require.NoError(t, err)
	require.Len(t, s, 3)
	assert.Equal(t, sim.Fault{Kind: sim.FaultCrash, Targets: [][]string{{"etcd-leader"}}, For: 5 * time.Second, Pos: "s:1",
		On: &sim.Trigger{Event: "raft.state", Match: []sim.FieldMatch{{Key: "role", Value: "leader"}}, Within: 500 * time.Millisecond}}, s[0])
	assert.Equal(t, "0s on raft.state role=leader within 500ms: crash etcd-leader for 5s", s[0].String(), "armed from the start")
	assert.Equal(t, "20s on etcd.member change=add-learner err=x:y edge times 2: pause etcd-1", s[1].String())
	assert.Equal(t, []string{"apiservers"}, s[2].On.Hosts)
	assert.Equal(t, "30s on timer apiservers name=apiserver-cache-reinit: heal", s[2].String())
}

// TestTriggerLibraryExample: docs/library.md's builder example prints the
// lines it says it does.
func TestTriggerLibraryExample(t *testing.T) {
	faults := sim.NewScheduleBuilder().
		Crash(0, "etcd-leader").For(5*time.Second).
		On("raft.state").Match("role", "leader").Within(500*time.Millisecond).Times(3).
		Pause(30*time.Second, "my-controller-1").For(10*time.Second).
		On("my.reconcile", "my-controller-1").Match("phase", "writing").
		MustSchedule()
	assert.Equal(t, "# kubesim fault schedule\n"+
		"0s on raft.state role=leader within 500ms times 3: crash etcd-leader for 5s\n"+
		"30s on my.reconcile my-controller-1 phase=writing: pause my-controller-1 for 10s\n", faults.String())
}
