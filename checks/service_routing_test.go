package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apptrace"
)

func TestServiceRouting(t *testing.T) {
	web := &model.Service{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default", UID: "s1"},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.1.1",
			Ports: []model.ServicePort{{Name: "http", Port: 80, TargetPort: model.FromInt(8080)}}}}
	other := &model.Service{ObjectMeta: model.ObjectMeta{Name: "other", Namespace: "default", UID: "s2"},
		Spec: model.ServiceSpec{Selector: map[string]string{"app": "other"}, ClusterIP: "10.96.1.2",
			Ports: []model.ServicePort{{Name: "http", Port: 80, TargetPort: model.FromInt(8080)}}}}
	a := epPod("a", "10.0.0.1", true, false, "")
	b := epPod("b", "10.0.0.2", true, false, "")
	b.Labels = map[string]string{"app": "other"}
	req := func(pod, addr string) *apptrace.Request {
		return &apptrace.Request{Client: "users", Service: "default/web", PortName: "http", Entry: "n1",
			Outcome: apptrace.OutcomeOK, Pod: pod, Addr: addr}
	}
	cases := []struct {
		name string
		req  *apptrace.Request
		fail string // the first offense, or "" for a pass
	}{
		{"a pod of the Service on its target port", req("default/a", "10.0.0.1:8080"), ""},
		{"no backend picked", req("", ""), ""},
		{"another Service's pod", req("default/b", "10.0.0.2:8080"),
			`request of users to default/web port "http" went to default/b at 10.0.0.2:8080, a pod its selector never picked`},
		{"another pod's address", req("default/a", "10.0.0.2:8080"),
			`request of users to default/web port "http" went to default/a at 10.0.0.2:8080, which is not the pod's IP`},
		{"the Service's own port instead of the target", req("default/a", "10.0.0.1:80"),
			`request of users to default/web port "http" went to default/a at 10.0.0.1:80, but the Service's port "http" targets another port`},
		{"a pod that never was", req("default/z", "10.0.0.9:8080"),
			`request of users to default/web port "http" went to default/z at 10.0.0.9:8080, but the cluster never had that pod`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := &epWorld{}
			w.put(1000, web)
			w.put(1000, other)
			w.put(2000, a)
			w.put(2000, b)
			res := feed(NewServiceRouting(), append(w.steps, at(3000, tc.req))...)
			require.Equal(t, "service-routing", res.Name)
			if tc.fail == "" {
				require.True(t, res.OK, res.String())
				return
			}
			require.False(t, res.OK)
			require.Equal(t, tc.fail, res.Offenses[0].What)
		})
	}
}
