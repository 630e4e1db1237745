package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

func TestEndpointsTimely(t *testing.T) {
	ready := epPod("a", "10.0.0.1", true, false, "")
	unready := epPod("a", "10.0.0.1", false, false, "")
	leaving := epPod("a", "10.0.0.1", true, true, "")
	base := func(w *epWorld) {
		w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
		w.put(1000, epSvc)
		w.put(2000, ready)
		w.put(2500, epSlice("web-1", epEndpoint(ready)))
	}
	cases := []struct {
		name  string
		build func(w *epWorld)
		fail  string // the first offense, or "" for a pass
	}{
		{"every change followed within 2 s", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.put(11000, epSlice("web-1", epEndpoint(unready)))
			w.put(20000, leaving)
			w.put(21900, epSlice("web-1", epEndpoint(leaving)))
		}, ""},
		{"a readiness change followed too late", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.put(12100, epSlice("web-1", epEndpoint(unready)))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s"},
		{"a deletion never shown, hidden by the next change", func(w *epWorld) {
			base(w)
			w.put(10000, leaving)
			w.put(15000, epPod("a", "10.0.0.1", false, true, ""))
			w.put(15100, epSlice("web-1", epEndpoint(epPod("a", "10.0.0.1", false, true, ""))))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=true terminating=true, but the slices did not show it within 2s"},
		{"a change superseded within the bound", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.put(11000, ready) // back before the controller wrote anything
		}, ""},
		{"a deleted pod left in the slice", func(w *epWorld) {
			base(w)
			w.steps = append(w.steps, at(10000, deletePod("default/a")))
		}, "service default/web: pod default/a called for no endpoint, but the slices did not show it within 2s"},
		{"a change late within BUGGIFY's delays", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.steps = append(w.steps, at(10100, buggified(sim.BuggifyEarly429, 1000)))
			w.put(12800, epSlice("web-1", epEndpoint(unready)))
		}, ""},
		{"a change late past BUGGIFY's delays", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.steps = append(w.steps, at(10100, buggified(sim.BuggifyEarly429, 1000)))
			w.put(13200, epSlice("web-1", epEndpoint(unready)))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s"},
		{"a delay over before the change stretches nothing", func(w *epWorld) {
			base(w)
			w.steps = append(w.steps, at(8000, buggified(sim.BuggifyEarly429, 1000)))
			w.put(10000, unready)
			w.put(12100, epSlice("web-1", epEndpoint(unready)))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s"},
		{"pods before the controller's first slice count from it", func(w *epWorld) {
			w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
			w.put(1000, epSvc)
			w.put(2000, ready)
			w.put(2000, epPod("b", "10.0.0.2", true, false, ""))
			w.put(30000, epSlice("web-1", epEndpoint(ready)))
			w.put(31000, epSlice("web-1", epEndpoint(ready), epEndpoint(epPod("b", "10.0.0.2", true, false, ""))))
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &epWorld{}
			tc.build(w)
			res := feed(NewEndpointsTimely(EndpointsTimelyOptions{}), w.end()...)
			require.Equal(t, "endpoints-timely", res.Name)
			if tc.fail == "" {
				require.True(t, res.OK, res.String())
				return
			}
			require.False(t, res.OK)
			require.Equal(t, tc.fail, res.Offenses[0].What)
		})
	}
}

// TestEndpointsTimelyFaults: a late endpoint is excused while a fault is
// active and within the recovery after it.
func TestEndpointsTimelyFaults(t *testing.T) {
	w := &epWorld{}
	w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
	w.put(1000, epSvc)
	w.put(2000, epPod("a", "10.0.0.1", true, false, ""))
	w.put(2500, epSlice("web-1", epEndpoint(epPod("a", "10.0.0.1", true, false, ""))))
	w.put(30000, epPod("a", "10.0.0.1", false, false, "")) // never followed
	var evs []sim.Event
	for _, s := range w.end() {
		evs = append(evs, sim.Event{At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Data: s.data})
	}
	crash := sim.Event{At: sim.Time(20 * time.Second), Kind: sim.KindFault, Name: string(sim.FaultCrash)}
	restart := sim.Event{At: sim.Time(25 * time.Second), Kind: sim.KindFault, Name: string(sim.FaultRestart)}
	evs = append(evs[:4], append([]sim.Event{crash, restart}, evs[4:]...)...)
	for i := range evs {
		evs[i].Seq = uint64(i)
	}
	res := feedEvents(NewEndpointsTimely(EndpointsTimelyOptions{}), evs)
	require.True(t, res.OK, res.String())
	require.Contains(t, res.Detail, "1 late ones excused by faults")
	res = feedEvents(NewEndpointsTimely(EndpointsTimelyOptions{Recovery: time.Second}), evs)
	require.False(t, res.OK)
}

// deletePod is the Apply of a pod's deletion ("namespace/name"), at a
// revision above the hand-built worlds'.
func deletePod(key string) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: "etcd-1", Rev: 1000,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangeDelete, Key: "/registry/pods/" + key, ModRev: 1000}}}
}
