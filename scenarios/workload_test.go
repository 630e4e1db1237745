package scenarios_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// stepWorld is a small API world for the workload steps: one etcd member,
// one API server that serves Widgets (customWidgets), and a probe client
// that reads what the steps did.
type stepWorld struct {
	t       *testing.T
	w       *sim.World
	servers []sim.HostID
	probe   *client.Client
}

func newStepWorld(t *testing.T, seed uint64) *stepWorld {
	w := sim.NewWorld(seed)
	c, err := scenarios.BuildCluster(w, scenarios.APIEtcdTopology(1), ablation.Set{})
	require.NoError(t, err)
	_, err = scenarios.BuildAPI(c, scenarios.APITopology{Servers: 1, Custom: &customWidgets}, ablation.Set{}, 0, time.Hour)
	require.NoError(t, err)
	sw := &stepWorld{t: t, w: w}
	for _, name := range c.API.Servers {
		h, _ := w.HostByName(name)
		sw.servers = append(sw.servers, h.ID())
	}
	w.MustAddHost(sim.HostSpec{Name: "probe", Role: scenarios.RoleAPIClient, Boot: func(h *sim.Host) {
		sw.probe = client.New(h, client.Config{Name: "probe", User: "admin", Servers: sw.servers})
	}})
	return sw
}

// stepLog is what became of one step: when it first succeeded, and the
// errors of its failed attempts.
type stepLog struct {
	ok   bool
	at   time.Duration
	errs []error
}

// recordSteps wraps each step's Do so that its log records what became
// of it, and returns the logs.
func recordSteps(steps []apiload.Step) []*stepLog {
	logs := make([]*stepLog, len(steps))
	for i := range steps {
		l, do := &stepLog{}, steps[i].Do
		logs[i] = l
		steps[i].Do = func(c *client.Client, done func(error)) {
			do(c, func(err error) {
				if err != nil {
					l.errs = append(l.errs, err)
				} else if !l.ok {
					l.ok, l.at = true, time.Duration(c.Host().Now())
				}
				done(err)
			})
		}
	}
	return logs
}

// script boots an operator host that runs steps, and returns their logs.
func (sw *stepWorld) script(name string, steps ...apiload.Step) []*stepLog {
	logs := recordSteps(steps)
	sw.w.MustAddHost(sim.HostSpec{Name: name, Role: scenarios.RoleOperator,
		Boot: apiload.BootScript(apiload.ScriptConfig{Name: name, Servers: sw.servers, Steps: steps})})
	return logs
}

// get reads an object with the probe (a quorum read), running the world
// until the answer came.
func (sw *stepWorld) get(resource, namespace, name string) (model.Object, error) {
	var obj model.Object
	var err error
	answered := false
	sw.probe.Resource(resource, namespace).Get(name, client.GetOptions{}, func(o model.Object, e error) {
		obj, err, answered = o, e, true
	})
	for i := 0; i < 100 && !answered; i++ {
		sw.w.RunFor(100 * time.Millisecond)
	}
	require.True(sw.t, answered)
	return obj, err
}

func (sw *stepWorld) mustGet(resource, namespace, name string) model.Object {
	sw.t.Helper()
	obj, err := sw.get(resource, namespace, name)
	require.NoError(sw.t, err)
	return obj
}

// widget is a Widget of the given size in namespace default.
func widget(name string, size int, labels map[string]string) *model.CustomObject {
	w := model.NewCustomObject(customWidgets, scenarios.WorkloadNamespace, name)
	w.Labels = labels
	if err := w.SetSpec(map[string]int{"size": size}); err != nil {
		panic(err)
	}
	return w
}

// widgetSize is a Widget's spec.size.
func widgetSize(obj model.Object) int {
	var spec struct{ Size int }
	if err := obj.(*model.CustomObject).DecodeSpec(&spec); err != nil {
		panic(err)
	}
	return spec.Size
}

const ns = scenarios.WorkloadNamespace

// TestWorkloadSteps: each step of the vocabulary does what it says to a
// small API world, after the setup steps before it, and is idempotent
// where a retry would see its own effect (AlreadyExists, NotFound).
func TestWorkloadSteps(t *testing.T) {
	rs := func(app string, n int32) *model.ReplicaSet {
		return scenarios.NewReplicaSet(app, n, scenarios.AppSpec{})
	}
	dep := func(app string, n int32) *model.Deployment {
		return scenarios.NewDeployment(app, n, scenarios.AppSpec{})
	}
	inTeam := rs("web", 2)
	inTeam.Namespace = "team"
	const at = 10 * time.Second
	cases := []struct {
		name    string
		setup   []apiload.Step
		step    apiload.Step
		wantErr string // the step never succeeds, failing with this
		check   func(t *testing.T, sw *stepWorld)
	}{
		{name: "CreateStep creates a ReplicaSet of the app's template",
			step: scenarios.CreateStep(at, rs("web", 3)),
			check: func(t *testing.T, sw *stepWorld) {
				got := sw.mustGet(model.ResourceReplicaSetsName, ns, "web").(*model.ReplicaSet)
				require.Equal(t, int32(3), *got.Spec.Replicas)
				require.Equal(t, map[string]string{"app": "web"}, got.Spec.Template.Labels)
				c := got.Spec.Template.Spec.Containers[0]
				require.Equal(t, "registry.example/web:1", c.Image)
				require.Equal(t, model.ResourceListOf("cpu", "250m", "memory", "256Mi"), c.Resources.Requests)
			}},
		{name: "CreateStep counts AlreadyExists as done",
			setup: []apiload.Step{scenarios.CreateStep(5*time.Second, rs("web", 3))},
			step:  scenarios.CreateStep(at, rs("web", 5)),
			check: func(t *testing.T, sw *stepWorld) {
				require.Equal(t, int32(3), *sw.mustGet(model.ResourceReplicaSetsName, ns, "web").(*model.ReplicaSet).Spec.Replicas)
			}},
		{name: "CreateStep creates a Deployment",
			step: scenarios.CreateStep(at, dep("api", 2)),
			check: func(t *testing.T, sw *stepWorld) {
				require.Equal(t, int32(2), *sw.mustGet(model.ResourceDeploymentsName, ns, "api").(*model.Deployment).Spec.Replicas)
			}},
		{name: "CreateCustomStep creates a custom object",
			step: scenarios.CreateCustomStep(at, customWidgets, widget("w", 2, nil)),
			check: func(t *testing.T, sw *stepWorld) {
				got := sw.mustGet("widgets", ns, "w")
				require.Equal(t, "Widget", got.Kind())
				require.Equal(t, 2, widgetSize(got))
			}},
		{name: "CreateStep refuses a custom object without panicking",
			step:    scenarios.CreateStep(at, widget("w", 2, nil)),
			wantErr: "create it with CreateCustomStep",
			check: func(t *testing.T, sw *stepWorld) {
				_, err := sw.get("widgets", ns, "w")
				require.True(t, client.IsNotFound(err), "nothing created: %v", err)
			}},
		{name: "UpdateStep mutates what it read",
			setup: []apiload.Step{scenarios.CreateStep(5*time.Second, rs("web", 3))},
			step: scenarios.UpdateStep(at, "label-web", model.ResourceReplicaSetsName, ns, "web", func(o model.Object) {
				o.GetObjectMeta().Annotations = map[string]string{"team": "blue"}
			}),
			check: func(t *testing.T, sw *stepWorld) {
				got := sw.mustGet(model.ResourceReplicaSetsName, ns, "web")
				require.Equal(t, "blue", got.GetObjectMeta().Annotations["team"])
				require.Equal(t, int32(3), *got.(*model.ReplicaSet).Spec.Replicas, "the rest is kept")
			}},
		{name: "DeleteStep deletes",
			setup: []apiload.Step{scenarios.CreateCustomStep(5*time.Second, customWidgets, widget("w", 1, nil))},
			step:  scenarios.DeleteStep(at, "widgets", ns, "w"),
			check: func(t *testing.T, sw *stepWorld) {
				_, err := sw.get("widgets", ns, "w")
				require.True(t, client.IsNotFound(err), "%v", err)
			}},
		{name: "DeleteStep counts NotFound as done",
			step:  scenarios.DeleteStep(at, model.ResourceDeploymentsName, ns, "never"),
			check: func(*testing.T, *stepWorld) {}},
		{name: "ScaleReplicaSet sets spec.replicas",
			setup: []apiload.Step{scenarios.CreateStep(5*time.Second, rs("web", 3))},
			step:  scenarios.ScaleReplicaSet(at, ns, "web", 7),
			check: func(t *testing.T, sw *stepWorld) {
				require.Equal(t, int32(7), *sw.mustGet(model.ResourceReplicaSetsName, ns, "web").(*model.ReplicaSet).Spec.Replicas)
			}},
		{name: "ScaleReplicaSet acts in the namespace it is given",
			setup: []apiload.Step{scenarios.CreateStep(5*time.Second, inTeam)},
			step:  scenarios.ScaleReplicaSet(at, "team", "web", 4),
			check: func(t *testing.T, sw *stepWorld) {
				require.Equal(t, int32(4), *sw.mustGet(model.ResourceReplicaSetsName, "team", "web").(*model.ReplicaSet).Spec.Replicas)
			}},
		{name: "ScaleDeployment sets spec.replicas",
			setup: []apiload.Step{scenarios.CreateStep(5*time.Second, dep("api", 2))},
			step:  scenarios.ScaleDeployment(at, ns, "api", 5),
			check: func(t *testing.T, sw *stepWorld) {
				require.Equal(t, int32(5), *sw.mustGet(model.ResourceDeploymentsName, ns, "api").(*model.Deployment).Spec.Replicas)
			}},
		{name: "RollDeployment sets every container's image",
			setup: []apiload.Step{scenarios.CreateStep(5*time.Second, dep("api", 2))},
			step:  scenarios.RollDeployment(at, ns, "api", "registry.example/api:2"),
			check: func(t *testing.T, sw *stepWorld) {
				d := sw.mustGet(model.ResourceDeploymentsName, ns, "api").(*model.Deployment)
				require.Equal(t, "registry.example/api:2", d.Spec.Template.Spec.Containers[0].Image)
			}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sw := newStepWorld(t, uint64(i+1))
			logs := sw.script("operator", append(tc.setup, tc.step)...)
			sw.w.RunFor(20 * time.Second)
			for j, l := range logs[:len(tc.setup)] {
				require.True(t, l.ok, "setup step %d: %v", j, l.errs)
			}
			l := logs[len(logs)-1]
			if tc.wantErr != "" {
				require.False(t, l.ok)
				require.NotEmpty(t, l.errs)
				require.ErrorContains(t, l.errs[0], tc.wantErr)
			} else {
				require.True(t, l.ok, "%v", l.errs)
				require.GreaterOrEqual(t, l.at, at, "not before its time")
			}
			tc.check(t, sw)
		})
	}
}

// TestWaitFor: a WaitFor step succeeds only once its condition holds of
// the object: before the object exists and while it does not meet the
// condition it fails with ErrNotYet and is tried again, and the steps
// after it wait. WaitForList does the same with a labelled list.
func TestWaitFor(t *testing.T) {
	sw := newStepWorld(t, 21)
	writer := sw.script("writer",
		scenarios.CreateCustomStep(10*time.Second, customWidgets, widget("w", 1, map[string]string{"app": "x"})),
		scenarios.UpdateStep(20*time.Second, "grow-w", "widgets", ns, "w", func(o model.Object) {
			if err := o.(*model.CustomObject).SetSpec(map[string]int{"size": 3}); err != nil {
				panic(err)
			}
		}),
		scenarios.CreateCustomStep(30*time.Second, customWidgets, widget("v", 1, map[string]string{"app": "x"})),
		scenarios.CreateCustomStep(30*time.Second, customWidgets, widget("other", 1, map[string]string{"app": "y"})))
	waiter := sw.script("waiter",
		scenarios.WaitFor(2*time.Second, "wait-w-3", "widgets", ns, "w", func(o model.Object) bool { return widgetSize(o) == 3 }),
		scenarios.WaitForList(2*time.Second, "wait-two-x", "widgets", ns, "app=x", func(items []model.Object) bool { return len(items) == 2 }),
		scenarios.WaitFor(2*time.Second, "wait-never", "widgets", ns, "w", func(o model.Object) bool { return widgetSize(o) == 4 }))
	sw.w.RunFor(60 * time.Second)
	for i, l := range writer {
		require.True(t, l.ok, "writer step %d: %v", i, l.errs)
	}
	wait3, waitList, never := waiter[0], waiter[1], waiter[2]

	require.True(t, wait3.ok, "%v", wait3.errs)
	require.GreaterOrEqual(t, wait3.at, writer[1].at, "not before the Widget grew to 3")
	require.NotEmpty(t, wait3.errs)
	for _, err := range wait3.errs {
		require.True(t, errors.Is(err, scenarios.ErrNotYet), "%v", err)
	}
	require.ErrorContains(t, wait3.errs[0], "does not exist", "NotFound is not yet")

	require.True(t, waitList.ok, "%v", waitList.errs)
	require.GreaterOrEqual(t, waitList.at, writer[3].at, "not before the second app=x Widget")
	require.NotEmpty(t, waitList.errs)
	for _, err := range waitList.errs {
		require.True(t, errors.Is(err, scenarios.ErrNotYet), "%v", err)
	}

	require.False(t, never.ok, "the size never becomes 4")
	require.NotEmpty(t, never.errs)
	require.True(t, errors.Is(never.errs[len(never.errs)-1], scenarios.ErrNotYet))
}
