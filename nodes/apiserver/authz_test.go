package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/trace/apiwire"
)

func TestAuthorization(t *testing.T) {
	tw := newWorld(t, 11, 1, nil)
	tw.must(0, create(newNode("n1")))
	tw.must(0, create(newNode("n2")))
	tw.must(0, create(newPod("on1")))
	tw.must(0, create(newPod("on2")))
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbBind, Resource: "pods", Namespace: "default", Name: "on1", NodeName: "n1"})
	tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbBind, Resource: "pods", Namespace: "default", Name: "on2", NodeName: "n2"})

	pod := func(name string) *model.Pod { return tw.must(0, getPod(name)).Object.(*model.Pod) }
	node := func(name string) *model.Node {
		return tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbGet, Resource: "nodes", Name: name}).Object.(*model.Node)
	}
	lease := func(ns, name string) *model.Lease {
		return &model.Lease{ObjectMeta: model.ObjectMeta{Name: name, Namespace: ns}, Spec: model.LeaseSpec{HolderIdentity: model.Ptr("x")}}
	}
	podStatus := func(user, name string) *apiwire.Request {
		p := pod(name)
		p.Status.Phase = model.PodRunning
		return update(user, apiwire.VerbUpdateStatus, p)
	}
	cases := []struct {
		name string
		req  func() *apiwire.Request
		code int
	}{
		{"unknown user lists pods", func() *apiwire.Request {
			return &apiwire.Request{User: "bob", Verb: apiwire.VerbList, Resource: "pods"}
		}, 403},
		{"no user", func() *apiwire.Request { return &apiwire.Request{Verb: apiwire.VerbList, Resource: "pods"} }, 401},
		{"scheduler lists nodes", func() *apiwire.Request {
			return &apiwire.Request{User: userScheduler, Verb: apiwire.VerbList, Resource: "nodes"}
		}, 200},
		{"scheduler updates pod status", func() *apiwire.Request { return podStatus(userScheduler, "on1") }, 200},
		{"scheduler cannot create pods", func() *apiwire.Request {
			r := create(newPod("s"))
			r.User = userScheduler
			return r
		}, 403},
		{"scheduler creates its lease", func() *apiwire.Request {
			r := create(lease("kube-system", "kube-scheduler"))
			r.User = userScheduler
			return r
		}, 201},
		{"scheduler cannot create leases elsewhere", func() *apiwire.Request {
			r := create(lease("default", "kube-scheduler"))
			r.User = userScheduler
			return r
		}, 403},
		{"controller manager creates pods", func() *apiwire.Request {
			r := create(newPod("cm"))
			r.User = userControllerManager
			return r
		}, 201},
		{"controller manager patches nodes", func() *apiwire.Request {
			return &apiwire.Request{User: userControllerManager, Verb: apiwire.VerbPatch, Resource: "nodes", Name: "n1",
				Patch: []byte(`{"spec":{"unschedulable":true}}`)}
		}, 200},
		{"controller manager cannot create nodes", func() *apiwire.Request {
			r := create(newNode("n3"))
			r.User = userControllerManager
			return r
		}, 403},
		{"kubelet updates its own node status", func() *apiwire.Request {
			return update("system:node:n1", apiwire.VerbUpdateStatus, node("n1"))
		}, 200},
		{"kubelet cannot update another node", func() *apiwire.Request {
			return update("system:node:n1", apiwire.VerbUpdateStatus, node("n2"))
		}, 403},
		{"kubelet updates its own node", func() *apiwire.Request {
			return update("system:node:n1", apiwire.VerbUpdate, node("n1"))
		}, 200},
		{"kubelet patches its own node", func() *apiwire.Request {
			return &apiwire.Request{User: "system:node:n1", Verb: apiwire.VerbPatch, Resource: "nodes", Name: "n1",
				Patch: []byte(`{"metadata":{"labels":{"a":"b"}}}`)}
		}, 200},
		// The system:node role grants no delete of nodes (kubernetes
		// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go,
		// NodeRules): a node that goes away is deleted by an admin or
		// the cloud node lifecycle, never by its own kubelet.
		{"kubelet cannot delete its own node", func() *apiwire.Request {
			return &apiwire.Request{User: "system:node:n1", Verb: apiwire.VerbDelete, Resource: "nodes", Name: "n1"}
		}, 403},
		{"kubelet creates its own node", func() *apiwire.Request {
			r := create(newNode("n9"))
			r.User = "system:node:n9"
			return r
		}, 201},
		{"kubelet updates status of its pod", func() *apiwire.Request { return podStatus("system:node:n1", "on1") }, 200},
		{"kubelet cannot update status of another node's pod", func() *apiwire.Request { return podStatus("system:node:n1", "on2") }, 403},
		{"kubelet cannot delete another node's pod", func() *apiwire.Request {
			return &apiwire.Request{User: "system:node:n1", Verb: apiwire.VerbDelete, Resource: "pods", Namespace: "default", Name: "on2"}
		}, 403},
		{"kubelet cannot create pods", func() *apiwire.Request {
			r := create(newPod("k"))
			r.User = "system:node:n1"
			return r
		}, 403},
		{"kubelet creates its node lease", func() *apiwire.Request {
			r := create(lease(model.NodeLeaseNamespace, "n1"))
			r.User = "system:node:n1"
			return r
		}, 201},
		{"kubelet cannot create another node's lease", func() *apiwire.Request {
			r := create(lease(model.NodeLeaseNamespace, "n2"))
			r.User = "system:node:n1"
			return r
		}, 403},
	}
	for _, c := range cases {
		resp := tw.do(0, c.req())
		want := c.code
		if want == 201 {
			want = 200
		}
		assert.Equal(t, want, resp.Status.Code, "%s: %s", c.name, resp.Status.Message)
	}
	resp := tw.do(0, update("bob", apiwire.VerbUpdate, pod("on1")))
	assert.Equal(t, `pods "on1" is forbidden: User "bob" cannot update resource "pods" in API group "" in the namespace "default"`, resp.Status.Message)
	// NodeRestriction's refusals, as kubernetes
	// plugin/pkg/admission/noderestriction/admission.go (admitPodStatus,
	// admitPod's delete) words them.
	resp = tw.do(0, podStatus("system:node:n1", "on2"))
	assert.Equal(t, apiwire.ReasonForbidden, resp.Status.Reason)
	assert.Equal(t, `pods "on2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself`, resp.Status.Message)
	resp = tw.do(0, &apiwire.Request{User: "system:node:n1", Verb: apiwire.VerbDelete, Resource: "pods", Namespace: "default", Name: "on2"})
	assert.Equal(t, `pods "on2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself`, resp.Status.Message)
	for _, a := range tw.admits {
		assert.NotEqual(t, "bob", a.User)
		if a.User == "system:node:n1" && a.Resource == "pods" {
			assert.Equal(t, "n1", a.OldNode)
		}
	}
}

func TestSkipAuthzAblation(t *testing.T) {
	tw := newWorld(t, 12, 1, func(c *Config) { c.Ablations = ablation.Of(ablation.SkipAuthz) })
	r := create(newPod("x"))
	r.User = "bob"
	tw.must(0, r)
	tw.must(0, create(newNode("n2")))
	n := tw.must(0, &apiwire.Request{User: "admin", Verb: apiwire.VerbGet, Resource: "nodes", Name: "n2"}).Object
	tw.must(0, update("system:node:n1", apiwire.VerbUpdateStatus, n))
	// Authentication still holds.
	assert.Equal(t, 401, tw.do(0, &apiwire.Request{Verb: apiwire.VerbList, Resource: "pods"}).Status.Code)
}
