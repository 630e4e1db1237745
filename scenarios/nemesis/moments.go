package nemesis

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/sim"
)

// Moment is a vulnerable moment that a triggered fault can aim at (see
// sim.Trigger): the few hundred milliseconds where a bug matters, marked
// by an event the trace already has. Example is a schedule line aimed at
// it, whose trigger (Trigger) is the moment's.
type Moment struct {
	Name    string
	Layer   string // the lowest layer whose worlds have the moment
	Means   string
	Example string
}

// moments are the named moments, in documentation order.
var moments = []Moment{
	{Name: "leader-elected", Layer: "etcd",
		Means:   "an etcd member has just become leader: its term's first entry is not committed yet, its followers' logs are being repaired",
		Example: "0s on raft.state role=leader edge within 500ms: crash etcd-leader for 5s"},
	{Name: "learner-present", Layer: "etcd",
		Means:   "a member has applied the configuration change that adds a learner (the others apply it within milliseconds), and the learner catches up until it is promoted",
		Example: "0s on etcd.member change=add-learner within 1s: isolate etcd-leader for 5s"},
	{Name: "snapshot-sent", Layer: "etcd",
		Means:   "a member serves a snapshot of its store (etcdctl snapshot save) to a backup that is not yet durable",
		Example: "0s on etcd.snapshot within 100ms: crash etcd-leader for 5s"},
	{Name: "snapshot-restored", Layer: "stack",
		Means:   "a member has restored a snapshot (etcdutl snapshot restore) and is about to start on it",
		Example: "0s on etcd.restore within 500ms: crash etcd-leader for 5s"},
	{Name: "watch-cache-reinit", Layer: "api",
		Means:   "an API server's watch cache starts over (its etcd watch was compacted away): it closes its watchers and lists anew, unready until the list returns",
		Example: "0s on timer apiservers name=apiserver-cache-reinit within 50ms: pause etcd-leader for 2s"},
	{Name: "rollout-started", Layer: "stack",
		Means:   "the Deployment controller has created a rollout's new ReplicaSet: the old one is not yet scaled down, the new one has no pods",
		Example: "0s on api.admit resource=replicasets verb=create within 1s: crash controller-manager-leader for 10s"},
	{Name: "endpointslice-update", Layer: "stack",
		Means:   "an API server is writing an EndpointSlice update to etcd: the write is in flight, kube-proxies have not seen it",
		Example: "0s on api.admit resource=endpointslices verb=update within 5ms: crash etcd-leader for 5s"},
}

// Moments lists the named moments, in documentation order.
func Moments() []Moment { return append([]Moment(nil), moments...) }

// LookupMoment returns the moment called name.
func LookupMoment(name string) (Moment, error) {
	var names []string
	for _, m := range moments {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Moment{}, fmt.Errorf("unknown moment %q (want one of %s)", name, strings.Join(names, ", "))
}

// Trigger returns the moment's trigger, as its Example writes it.
func (m Moment) Trigger() sim.Trigger {
	f, err := sim.ParseFault(m.Example)
	if err != nil || f.On == nil {
		panic(fmt.Sprintf("nemesis: moment %s: example %q: %v", m.Name, m.Example, err))
	}
	return *f.On
}

// Aim returns f aimed at the moment: armed from its At, it waits for the
// moment's event, and fires after as many as times (once for 0).
func (m Moment) Aim(f sim.Fault, times int) sim.Fault {
	on := m.Trigger()
	on.Times = times
	f.On = &on
	return f
}

// maxMomentTimes bounds the moments profile's times: a sweep's run stays
// bounded.
const maxMomentTimes = 100

// genMoments is the moments profile: the example fault of the moment the
// profile names, aimed at it, disarmed when a fault it fires could no
// longer end (its window and its for) by end.
func genMoments(p params, _ *Cluster, _ *sim.Stream, end time.Duration) sim.Schedule {
	m, err := LookupMoment(p["moment"])
	if err != nil {
		return nil
	}
	f, err := sim.ParseFault(m.Example)
	if err != nil {
		return nil
	}
	f.On.Times, _ = strconv.Atoi(p["times"])
	f.On.Until = end - f.On.Within - f.For
	if f.On.Until <= 0 {
		return nil
	}
	return sim.Schedule{f}
}

// aimedKind is a layer's chaos kind "aimed-LAYER": the example fault of one
// of the named moments (drawn from rng), armed at the drawn fault's time
// and aimed at the moment's next event, so that chaos runs put faults
// inside the windows where bugs matter and not only at random times
// (Jepsen's nemeses aim at the state the system is in). The trigger
// disarms in time for the fault it fires to end within the drawn fault's
// span; when the span is too short for the example's window and length,
// the fault lands at the event itself, for at most half the span. A moment whose event does not come in the span
// fires nothing: the run is, for that draw, quieter.
func aimedKind(layer string, weight int, rng *sim.Stream, names ...string) chaosKind {
	return chaosKind{"aimed-" + layer, weight, func(f *sim.Fault) {
		m, err := LookupMoment(names[rng.IntN(len(names))])
		if err != nil {
			panic(fmt.Sprintf("nemesis: aimed: %v", err))
		}
		g, err := sim.ParseFault(m.Example)
		if err != nil {
			panic(fmt.Sprintf("nemesis: aimed: moment %s: %v", m.Name, err))
		}
		g.At = f.At
		if g.On.Within+g.For >= f.For {
			g.On.Within, g.For = 0, min(g.For, f.For/2)
		}
		g.On.Until = f.At + f.For - g.On.Within - g.For
		*f = g
	}}
}
