package checks

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// epWorld builds hand-made committed states for endpoints-converge.
type epWorld struct {
	rev   int64
	steps []step
}

// put commits obj at ms.
func (w *epWorld) put(ms int64, obj model.Object) {
	data, err := model.Encode(obj)
	if err != nil {
		panic(err)
	}
	w.rev++
	m := obj.GetObjectMeta()
	key := "/registry/" + model.ResourceOf(obj).Name + "/"
	if m.Namespace != "" {
		key += m.Namespace + "/"
	}
	w.steps = append(w.steps, at(ms, &etcdtrace.Apply{Member: "etcd-1", Rev: w.rev,
		Changes: []etcdtrace.Change{{Type: etcdtrace.ChangePut, Key: key + m.Name, Value: string(data), ModRev: w.rev}}}))
}

// end is the run's last event, at 60 s.
func (w *epWorld) end() []step {
	return append(w.steps, at(60000, &spoketrace.ClusterState{}))
}

var epSvc = &model.Service{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default", UID: "svc1"},
	Spec: model.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.1.1", Ports: []model.ServicePort{{Port: 80}}}}

// epPod is a pod of app web on n1 with IP ip; ready and deleting as said;
// phase Running unless given.
func epPod(name, ip string, ready, deleting bool, phase model.PodPhase) *model.Pod {
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", UID: model.UID("u-" + name), Labels: map[string]string{"app": "web"}},
		Spec: model.PodSpec{NodeName: "n1"}, Status: model.PodStatus{Phase: model.PodRunning, PodIP: ip}}
	if phase != "" {
		p.Status.Phase = phase
	}
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	model.SetPodCondition(&p.Status, model.PodCondition{Type: model.PodReady, Status: st})
	if deleting {
		p.DeletionTimestamp = model.Ptr(model.Time(1))
	}
	return p
}

// epEndpoint is the controller's endpoint of p.
func epEndpoint(p *model.Pod) model.Endpoint {
	ready, deleting := model.IsPodReady(p), p.DeletionTimestamp != nil
	return model.Endpoint{Addresses: []string{p.Status.PodIP}, NodeName: p.Spec.NodeName,
		Conditions: model.EndpointConditions{Ready: model.Ptr(ready && !deleting), Serving: model.Ptr(ready), Terminating: model.Ptr(deleting)},
		TargetRef:  &model.ObjectReference{Kind: model.KindPod, Namespace: p.Namespace, Name: p.Name, UID: p.UID}}
}

// epSlice is a slice of epSvc named name holding eps.
func epSlice(name string, eps ...model.Endpoint) *model.EndpointSlice {
	return &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default",
		Labels:          map[string]string{model.LabelServiceName: "web", model.LabelManagedBy: model.ManagedByEndpointSliceController},
		OwnerReferences: []model.OwnerReference{*model.NewControllerRef(epSvc, model.KindService)}},
		AddressType: model.AddressTypeIPv4, Endpoints: eps}
}

func TestEndpointsConverge(t *testing.T) {
	ready := epPod("a", "10.0.0.1", true, false, "")
	unready := epPod("b", "10.0.0.2", false, false, "")
	leaving := epPod("c", "10.0.0.3", true, true, "")
	done := epPod("d", "10.0.0.4", false, false, model.PodSucceeded)
	noIP := epPod("e", "", false, false, model.PodPending)
	lost := epPod("f", "10.0.0.6", true, false, "")
	lost.Spec.NodeName = "gone"
	unreadyA := epPod("a", "10.0.0.1", false, false, "")
	lyingUnready := epEndpoint(unready)
	lyingUnready.Conditions.Ready = model.Ptr(true)
	other := epSlice("web-other", epEndpoint(ready))
	other.OwnerReferences[0].UID = "older-svc"
	var many []model.Endpoint
	var manyPods []*model.Pod
	for i := range model.MaxEndpointsPerSlice + 1 {
		p := epPod(fmt.Sprintf("m%d", i), fmt.Sprintf("10.0.1.%d", i), true, false, "")
		manyPods = append(manyPods, p)
		many = append(many, epEndpoint(p))
	}
	base := func(w *epWorld, pods ...*model.Pod) {
		w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
		w.put(1000, epSvc)
		for _, p := range pods {
			w.put(2000, p)
		}
	}
	cases := []struct {
		name  string
		build func(w *epWorld)
		fail  string // the first offense, or "" for a pass
	}{
		{"every state as the controller writes it", func(w *epWorld) {
			base(w, ready, unready, leaving, done, noIP, lost)
			w.put(3000, epSlice("web-1", epEndpoint(ready), epEndpoint(unready), epEndpoint(leaving)))
		}, ""},
		{"a slice the leading controller wrote, deleted by a user, never recreated", func(w *epWorld) {
			base(w, ready)
			w.steps = append(w.steps, at(2900, cmWrite("cm-1")), at(2950, cmAdmit(controllerManagerUser, "create", "default/web-1")))
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.steps = append(w.steps, at(9990, cmAdmit("admin", "delete", "default/web-1")))
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
		}, "service default/web: pod default/a (10.0.0.1 on n1 ready=true serving=true terminating=false) has no endpoint"},
		{"a slice an earlier leader wrote, deleted by a user: unjudged until the controller writes again", func(w *epWorld) {
			base(w, ready)
			w.steps = append(w.steps, at(2900, cmWrite("cm-1")), at(2950, cmAdmit(controllerManagerUser, "create", "default/web-1")))
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.steps = append(w.steps, at(5000, cmWrite("cm-2")), at(9990, cmAdmit("admin", "delete", "default/web-1")))
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
		}, ""},
		{"unjudged until the controller writes again, then judged", func(w *epWorld) {
			base(w, ready, unready)
			w.steps = append(w.steps, at(2900, cmWrite("cm-1")), at(2950, cmAdmit(controllerManagerUser, "create", "default/web-1")))
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(3000, epSlice("web-2", epEndpoint(unready)))
			w.steps = append(w.steps, at(5000, cmWrite("cm-2")), at(9990, cmAdmit("admin", "delete", "default/web-1")))
			w.del(10000, model.ResourceEndpointSlicesName, "default/web-1")
			w.steps = append(w.steps, at(20990, cmAdmit(controllerManagerUser, "update", "default/web-2")))
			w.put(21000, epSlice("web-2", epEndpoint(unready)))
		}, "service default/web: pod default/a (10.0.0.1 on n1 ready=true serving=true terminating=false) has no endpoint"},
		{"no pods: an empty placeholder", func(w *epWorld) {
			base(w)
			w.put(3000, epSlice("web-1"))
		}, ""},
		{"endpoints spread over two slices", func(w *epWorld) {
			base(w, ready, unready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(3000, epSlice("web-2", epEndpoint(unready)))
		}, ""},
		{"a ready pod without an endpoint", func(w *epWorld) {
			base(w, ready, unready)
			w.put(3000, epSlice("web-1", epEndpoint(unready)))
		}, "service default/web: pod default/a (10.0.0.1 on n1 ready=true serving=true terminating=false) has no endpoint"},
		{"an unready pod's endpoint says ready", func(w *epWorld) {
			base(w, unready)
			w.put(3000, epSlice("web-1", lyingUnready))
		}, "service default/web: pod default/b's endpoint in default/web-1 is 10.0.0.2 on n1 ready=true serving=false terminating=false, its pod says 10.0.0.2 on n1 ready=false serving=false terminating=false"},
		{"a terminating pod dropped", func(w *epWorld) {
			base(w, ready, leaving)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
		}, "service default/web: pod default/c (10.0.0.3 on n1 ready=false serving=true terminating=true) has no endpoint"},
		{"a terminal pod still listed", func(w *epWorld) {
			base(w, done)
			w.put(3000, epSlice("web-1", epEndpoint(done)))
		}, "service default/web: slice default/web-1 lists default/d (10.0.0.4 on n1 ready=false serving=false terminating=false), which is no endpoint of it"},
		{"a pod in two slices", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(3000, epSlice("web-2", epEndpoint(ready)))
		}, "service default/web: pod default/a has 2 endpoints"},
		{"only another Service's slice", func(w *epWorld) {
			base(w, ready)
			w.put(3000, other)
		}, "service default/web: pod default/a (10.0.0.1 on n1 ready=true serving=true terminating=false) has no endpoint"},
		{"a slice of more than 100 endpoints", func(w *epWorld) {
			base(w, manyPods...)
			w.put(3000, epSlice("web-1", many...))
		}, "slice default/web-1 holds 101 endpoints, more than 100 (--max-endpoints-per-slice)"},
		{"a pod that changed in the last 5 s is not judged", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(57000, epPod("a", "10.0.0.1", false, false, ""))
		}, ""},
		{"the same change 5 s earlier is", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(54000, epPod("a", "10.0.0.1", false, false, ""))
		}, "service default/web: pod default/a's endpoint in default/web-1 is 10.0.0.1 on n1 ready=true serving=true terminating=false, its pod says 10.0.0.1 on n1 ready=false serving=false terminating=false"},
		{"a readiness change followed within 5 s, twice", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(10000, unreadyA)
			w.put(11000, epSlice("web-1", epEndpoint(unreadyA)))
			w.put(30000, ready)
			w.put(34000, epSlice("web-1", epEndpoint(ready)))
		}, ""},
		{"a readiness change never followed, until a later one undid it", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(10000, unreadyA)
			w.put(30000, ready)
		}, "at 30.000000s, after 20s without a change: service default/web: pod default/a's endpoint in default/web-1 is 10.0.0.1 on n1 ready=true serving=true terminating=false, its pod says 10.0.0.1 on n1 ready=false serving=false terminating=false"},
		{"a readiness change left while the controller waits out a retry", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(10000, unreadyA)
			w.steps = append(w.steps, at(10010, &spoketrace.ControllerRetry{Controller: spoketrace.ControllerEndpointSlice, Key: "default/web",
				Reason: "EndpointSlice informer cache is out of date", AfterNs: int64(16 * time.Second)}))
			w.put(26010, epSlice("web-1", epEndpoint(unreadyA)))
		}, ""},
		{"a readiness change left past the retry", func(w *epWorld) {
			base(w, ready)
			w.put(3000, epSlice("web-1", epEndpoint(ready)))
			w.put(10000, unreadyA)
			w.steps = append(w.steps, at(10010, &spoketrace.ControllerRetry{Controller: spoketrace.ControllerEndpointSlice, Key: "default/web",
				Reason: "EndpointSlice informer cache is out of date", AfterNs: int64(2 * time.Second)}))
			w.put(30000, ready)
		}, "at 30.000000s, after 20s without a change: service default/web: pod default/a's endpoint in default/web-1 is 10.0.0.1 on n1 ready=true serving=true terminating=false, its pod says 10.0.0.1 on n1 ready=false serving=false terminating=false"},
		{"no judgement before the controller's first slice", func(w *epWorld) {
			base(w, ready)
			w.put(30000, epSlice("web-1", epEndpoint(ready)))
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &epWorld{}
			c.build(w)
			res := feed(NewEndpointsConverge(EndpointsConvergeOptions{}), w.end()...)
			if c.fail == "" {
				require.True(t, res.OK, res.Detail)
				return
			}
			require.False(t, res.OK)
			require.NotEmpty(t, res.Offenses)
			require.Equal(t, c.fail, res.Offenses[0].What)
		})
	}
}

// TestEndpointsConvergeConfiguredMax: with the controller managers'
// --max-endpoints-per-slice at 2, a slice of 3 endpoints is an offense
// and the same endpoints split 2 + 1 are not; at the default (100), the
// slice of 3 is fine.
func TestEndpointsConvergeConfiguredMax(t *testing.T) {
	var pods []*model.Pod
	var eps []model.Endpoint
	for i := range 3 {
		p := epPod(fmt.Sprintf("p%d", i), fmt.Sprintf("10.0.1.%d", i+1), true, false, "")
		pods, eps = append(pods, p), append(eps, epEndpoint(p))
	}
	cases := []struct {
		name   string
		max    int
		slices [][]model.Endpoint
		fail   string
	}{
		{"3 in a slice, max 2", 2, [][]model.Endpoint{eps}, "slice default/web-1 holds 3 endpoints, more than 2 (--max-endpoints-per-slice)"},
		{"2 + 1, max 2", 2, [][]model.Endpoint{eps[:2], eps[2:]}, ""},
		{"3 in a slice, the default max", 0, [][]model.Endpoint{eps}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &epWorld{}
			w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
			w.put(1000, epSvc)
			for _, p := range pods {
				w.put(2000, p)
			}
			for i, eps := range c.slices {
				w.put(3000, epSlice(fmt.Sprintf("web-%d", i+1), eps...))
			}
			res := feed(NewEndpointsConverge(EndpointsConvergeOptions{MaxEndpointsPerSlice: c.max}), w.end()...)
			if c.fail == "" {
				require.True(t, res.OK, "%v", res.Offenses)
				return
			}
			require.False(t, res.OK)
			require.Equal(t, c.fail, res.Offenses[0].What)
		})
	}
}

// TestEndpointsConvergeDetail: the detail counts the Services judged and
// those still changing.
func TestEndpointsConvergeDetail(t *testing.T) {
	w := &epWorld{}
	w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
	w.put(1000, epSvc)
	p := epPod("a", "10.0.0.1", true, false, "")
	w.put(2000, p)
	w.put(3000, epSlice("web-1", epEndpoint(p)))
	res := feed(NewEndpointsConverge(EndpointsConvergeOptions{}), w.end()...)
	require.True(t, res.OK)
	require.Equal(t, "1 service(s) judged (1 endpoints) match their pods; 0 still changing at the end; 0 quiet points judged during the run", res.Detail)
}

// TestEndpointsConvergeQuietAfterFaults: the mid-run judgement waits out
// Recovery after the last fault, and counts the quiet points it judged.
func TestEndpointsConvergeQuietAfterFaults(t *testing.T) {
	ready := epPod("a", "10.0.0.1", true, false, "")
	unready := epPod("a", "10.0.0.1", false, false, "")
	w := &epWorld{}
	w.put(1000, &model.Node{ObjectMeta: model.ObjectMeta{Name: "n1"}})
	w.put(1000, epSvc)
	w.put(2000, ready)
	w.put(3000, epSlice("web-1", epEndpoint(ready)))
	w.put(10000, unready) // never followed: the controller manager was down
	w.put(30000, ready)
	var evs []sim.Event
	for _, s := range w.end() {
		evs = append(evs, sim.Event{At: sim.Time(s.ms * int64(time.Millisecond)), Kind: sim.KindNode, Data: s.data})
	}
	crash := sim.Event{At: sim.Time(4 * time.Second), Kind: sim.KindFault, Name: string(sim.FaultCrash)}
	restart := sim.Event{At: sim.Time(9 * time.Second), Kind: sim.KindFault, Name: string(sim.FaultRestart)}
	evs = append(evs[:4], append([]sim.Event{crash, restart}, evs[4:]...)...)
	for i := range evs {
		evs[i].Seq = uint64(i)
	}
	res := feedEvents(NewEndpointsConverge(EndpointsConvergeOptions{}), evs)
	require.True(t, res.OK, res.String())
	require.Contains(t, res.Detail, "0 quiet points judged during the run")

	// With a recovery shorter than the second from the restart to the
	// change, the same world is judged, and fails.
	res = feedEvents(NewEndpointsConverge(EndpointsConvergeOptions{Recovery: 500 * time.Millisecond}), evs)
	require.False(t, res.OK)
	require.Contains(t, res.Offenses[0].What, "at 30.000000s, after 20s without a change")
}
