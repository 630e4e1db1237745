package checks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
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
		{"a change shown late, after the controller's retry of a failed sync", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.steps = append(w.steps, at(10010, &spoketrace.ControllerRetry{Controller: spoketrace.ControllerEndpointSlice, Key: "default/web",
				Reason: "EndpointSlice informer cache is out of date", AfterNs: int64(16 * time.Second)}))
			w.put(26100, epSlice("web-1", epEndpoint(unready)))
		}, ""},
		{"a change shown late even after the retry", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.steps = append(w.steps, at(10010, &spoketrace.ControllerRetry{Controller: spoketrace.ControllerEndpointSlice, Key: "default/web",
				Reason: "EndpointSlice informer cache is out of date", AfterNs: int64(time.Second)}))
			w.put(13100, epSlice("web-1", epEndpoint(unready)))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s"},
		{"another Service's retry excuses nothing", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.steps = append(w.steps, at(10010, &spoketrace.ControllerRetry{Controller: spoketrace.ControllerEndpointSlice, Key: "default/other",
				Reason: "EndpointSlice informer cache is out of date", AfterNs: int64(16 * time.Second)}))
			w.put(12100, epSlice("web-1", epEndpoint(unready)))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s"},
		{"a change superseded within the bound", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			w.put(11000, ready) // back before the controller wrote anything
		}, ""},
		{"a deleted pod left in the slice", func(w *epWorld) {
			base(w)
			w.steps = append(w.steps, at(10000, deletePod("default/a")))
		}, "service default/web: pod default/a called for no endpoint, but the slices did not show it within 2s"},
		{"a move between Services followed within 2 s", func(w *epWorld) {
			slots(w)
			w.put(10000, slotted(ready, "green"))
			w.put(10500, svcSlice(greenSvc, "web-green-1", epEndpoint(ready)))
			w.put(11000, svcSlice(blueSvc, "web-blue-1"))
		}, ""},
		{"a move that leaves the pod in the Service it left", func(w *epWorld) {
			slots(w)
			w.put(10000, slotted(ready, "green"))
			w.put(10500, svcSlice(greenSvc, "web-green-1", epEndpoint(ready)))
		}, "service default/web-blue: pod default/a called for no endpoint, but the slices did not show it within 2s"},
		{"a move that never reaches the Service it joined", func(w *epWorld) {
			slots(w)
			w.put(10000, slotted(ready, "green"))
			w.put(11000, svcSlice(blueSvc, "web-blue-1"))
		}, "service default/web-green: pod default/a called for the endpoint 10.0.0.1 on n1 ready=true serving=true terminating=false, but the slices did not show it within 2s"},
		{"a terminating pod shown not serving while ready", func(w *epWorld) {
			base(w)
			w.put(10000, leaving)
			notServing := epEndpoint(leaving)
			notServing.Conditions.Serving = model.Ptr(false)
			w.put(10500, epSlice("web-1", notServing))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=true terminating=true, but the slices did not show it within 2s"},
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
		{"a slice a user deleted, recreated within 2 s", func(w *epWorld) {
			base(w)
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
			w.put(11200, epSlice("web-2", epEndpoint(ready)))
		}, ""},
		{"a slice a user deleted, never recreated", func(w *epWorld) {
			base(w)
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=true serving=true terminating=false, but the slices did not show it within 2s"},
		{"a slice the leading controller wrote, deleted by a user, never recreated", func(w *epWorld) {
			w.steps = append(w.steps, at(900, cmWrite("cm-1")), at(2400, cmAdmit(controllerManagerUser, "create", "default/web-1")))
			base(w)
			w.steps = append(w.steps, at(9990, cmAdmit("admin", "delete", "default/web-1")))
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=true serving=true terminating=false, but the slices did not show it within 2s"},
		{"a slice an earlier leader wrote, deleted by a user: not in the tracker, owed nothing", func(w *epWorld) {
			w.steps = append(w.steps, at(900, cmWrite("cm-1")), at(2400, cmAdmit(controllerManagerUser, "create", "default/web-1")))
			base(w)
			w.steps = append(w.steps, at(5000, cmWrite("cm-2")), at(9990, cmAdmit("admin", "delete", "default/web-1")))
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
		}, ""},
		{"a slice a user edited, restored within 2 s", func(w *epWorld) {
			base(w)
			w.put(10000, epSlice("web-1"))
			w.put(11200, epSlice("web-1", epEndpoint(ready)))
		}, ""},
		{"a slice a user edited, never restored", func(w *epWorld) {
			base(w)
			lying := epEndpoint(ready)
			lying.Conditions.Ready = model.Ptr(false)
			w.put(10000, epSlice("web-1", lying))
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=true serving=true terminating=false, but the slices did not show it within 2s"},
		{"a slice relabelled to another Service, replaced within 2 s", func(w *epWorld) {
			slots(w)
			moved := epSlice("web-1", epEndpoint(ready))
			moved.Labels[model.LabelServiceName] = greenSvc.Name // still controlled by web
			w.put(10000, moved)
			w.put(11000, epSlice("web-2", epEndpoint(ready)))
		}, ""},
		{"a slice relabelled to another Service, never replaced", func(w *epWorld) {
			slots(w)
			moved := epSlice("web-1", epEndpoint(ready))
			moved.Labels[model.LabelServiceName] = greenSvc.Name
			w.put(10000, moved)
		}, "service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=true serving=true terminating=false, but the slices did not show it within 2s"},
		{"a Service whose selector was removed is no longer the controller's", func(w *epWorld) {
			base(w)
			w.put(10000, unready)
			bare := epSvc.DeepCopy()
			bare.Spec.Selector = nil
			w.put(10500, bare)
			w.del(12000, model.ResourceEndpointSlicesName, "default/web-1")
		}, ""},
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

// blueSvc and greenSvc are slot Services of web: app=web and slot=blue
// (green).
var blueSvc, greenSvc = slotSvc("blue"), slotSvc("green")

func slotSvc(slot string) *model.Service {
	return &model.Service{ObjectMeta: model.ObjectMeta{Name: "web-" + slot, Namespace: "default", UID: model.UID("svc-" + slot)},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": "web", "slot": slot}, ClusterIP: "10.96.1.2", Ports: []model.ServicePort{{Port: 80}}}}
}

// slotted is p with slot=<slot>.
func slotted(p *model.Pod, slot string) *model.Pod {
	q := p.DeepCopyObject().(*model.Pod)
	q.Labels = map[string]string{"app": "web", "slot": slot}
	return q
}

// svcSlice is a slice of svc named name holding eps.
func svcSlice(svc *model.Service, name string, eps ...model.Endpoint) *model.EndpointSlice {
	s := epSlice(name, eps...)
	s.Labels[model.LabelServiceName] = svc.Name
	s.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(svc, model.KindService)}
	return s
}

// slots is the world of TestEndpointsTimely with the slot Services, pod a
// ready in web-blue and shown there.
func slots(w *epWorld) {
	a := epPod("a", "10.0.0.1", true, false, "")
	w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
	w.put(1000, epSvc)
	w.put(1000, blueSvc)
	w.put(1000, greenSvc)
	w.put(2000, slotted(a, "blue"))
	w.put(2500, epSlice("web-1", epEndpoint(a)))
	w.put(2500, svcSlice(blueSvc, "web-blue-1", epEndpoint(a)))
}

// TestEndpointsTimelyFaults: a goal set near a fault is deferred, not
// excused: its bound counts from the recovery after the last fault, so an
// endpoint never shown is late once the cluster has recovered, and one
// shown meanwhile is met.
func TestEndpointsTimelyFaults(t *testing.T) {
	unready := epPod("a", "10.0.0.1", false, false, "")
	cases := []struct {
		name     string
		recovery time.Duration
		tail     func(w *epWorld) // after the goal, set at 30 s
		endMs    int64
		fail     string // the first offense, or "" for a pass
		detail   string
	}{
		{"pending at the end, before the recovery is over", 0, func(*epWorld) {}, 60000, "", "1 still pending at the end"},
		{"shown after the faults, within the recovery", 0, func(w *epWorld) {
			w.put(80000, epSlice("web-1", epEndpoint(unready)))
		}, 100000, "", "2 endpoint changes shown within 2s (1 of them set or pending near a fault"},
		{"never shown, judged after the recovery", 0, func(*epWorld) {}, 100000,
			"service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s of the recovery (1m0s) after the last fault", ""},
		{"never shown, away from the fault", time.Second, func(*epWorld) {}, 60000,
			"service default/web: pod default/a called for the endpoint 10.0.0.1 on n1 ready=false serving=false terminating=false, but the slices did not show it within 2s", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &epWorld{}
			w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
			w.put(1000, epSvc)
			w.put(2000, epPod("a", "10.0.0.1", true, false, ""))
			w.put(2500, epSlice("web-1", epEndpoint(epPod("a", "10.0.0.1", true, false, ""))))
			w.put(30000, unready)
			tc.tail(w)
			w.steps = append(w.steps, at(tc.endMs, &spoketrace.ClusterState{}))
			var evs []sim.Event
			for _, s := range w.steps {
				evs = append(evs, sim.Event{At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Data: s.data})
			}
			crash := sim.Event{At: sim.Time(20 * time.Second), Kind: sim.KindFault, Name: string(sim.FaultCrash)}
			restart := sim.Event{At: sim.Time(25 * time.Second), Kind: sim.KindFault, Name: string(sim.FaultRestart)}
			evs = append(evs[:4], append([]sim.Event{crash, restart}, evs[4:]...)...)
			for i := range evs {
				evs[i].Seq = uint64(i)
			}
			res := feedEvents(NewEndpointsTimely(EndpointsTimelyOptions{Recovery: tc.recovery}), evs)
			if tc.fail == "" {
				require.True(t, res.OK, res.String())
				require.Contains(t, res.Detail, tc.detail)
				return
			}
			require.False(t, res.OK)
			require.Equal(t, tc.fail, res.Offenses[0].What)
			require.Equal(t, sim.Time(30*time.Second), res.Offenses[0].At, "the offense names the change that set the goal")
		})
	}
}

// deletePod is the Apply of a pod's deletion ("namespace/name"), at a
// revision above the hand-built worlds'.
func deletePod(key string) *etcdtrace.Apply {
	return &etcdtrace.Apply{Member: "etcd-1", Rev: 1000,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangeDelete, Key: "/registry/pods/" + key, ModRev: 1000}}}
}

// del commits the deletion of key ("namespace/name") of resource at ms.
func (w *epWorld) del(ms int64, resource, key string) {
	w.rev++
	w.steps = append(w.steps, at(ms, &etcdtrace.Apply{Member: "etcd-1", Rev: w.rev,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangeDelete, Key: "/registry/" + resource + "/" + key, ModRev: w.rev}}}))
}

// cmWrite is a write of the controller manager leading as identity.
func cmWrite(identity string) *spoketrace.LeaderWrite {
	return &spoketrace.LeaderWrite{Component: "kube-controller-manager", Identity: identity, Verb: "update", Resource: "leases"}
}

// cmAdmit is an API server's admission of user's verb on the slice key.
func cmAdmit(user, verb, key string) *apitrace.Admit {
	return &apitrace.Admit{User: user, Verb: verb, Resource: model.ResourceEndpointSlicesName, Key: key}
}
