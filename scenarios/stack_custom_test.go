package scenarios_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/apiload"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/scenarios"
)

// adoptStep is what an operator's controller does for a Widget, as a
// script step: it reads the Widget and creates its Deployment of replicas
// pods, controlled by the Widget.
func adoptStep(at time.Duration, name string, replicas int32) apiload.Step {
	return apiload.Step{At: at, Name: "adopt-" + name, Do: func(c *client.Client, done func(error)) {
		c.CustomResources(customWidgets, ns).Get(name, client.GetOptions{}, func(w model.Object, err error) {
			if err != nil {
				done(err)
				return
			}
			d := scenarios.NewDeployment(name, replicas, scenarios.AppSpec{CPU: "100m", Memory: "64Mi"})
			d.OwnerReferences = []model.OwnerReference{*model.NewControllerRef(w, w.Kind())}
			c.Deployments(ns).Create(d, func(_ model.Object, err error) {
				if client.IsAlreadyExists(err) {
					err = nil
				}
				done(err)
			})
		})
	}}
}

// named reports whether an object of items is called name.
func named(items []model.Object, name string) bool {
	for _, o := range items {
		if o.GetObjectMeta().Name == name {
			return true
		}
	}
	return false
}

// running counts the running pods among items.
func running(items []model.Object) int {
	n := 0
	for _, o := range items {
		if o.(*model.Pod).Status.Phase == model.PodRunning {
			n++
		}
	}
	return n
}

// TestStackWithCustomKind: a stack whose API servers serve Widgets
// (StackTopology.Custom) runs and passes its checks; the Deployment an
// operator makes for a Widget becomes running pods, and once the Widget is
// deleted the garbage collector collects the Deployment, and through it
// its ReplicaSet and pods.
func TestStackWithCustomKind(t *testing.T) {
	var logs []*stepLog
	spec := scenarios.Spec{Name: "stack-custom-kind", Description: "a Widget's Deployment runs, then is collected with the Widget",
		Duration: 120 * time.Second, Settle: 30 * time.Second,
		Stack: &scenarios.StackTopology{APIServers: 1, Schedulers: 1, ControllerManagers: 1, Nodes: 2,
			Custom: []model.CustomResourceDefinition{customWidgets},
			Script: func(*scenarios.StackLayer) []apiload.Step {
				steps := []apiload.Step{
					scenarios.CreateCustomStep(5*time.Second, customWidgets, widget("shop", 3, nil)),
					adoptStep(5*time.Second, "shop", 3),
					scenarios.WaitForList(5*time.Second, "wait-shop-running", model.ResourcePodsName, ns, "app=shop",
						func(items []model.Object) bool { return running(items) == 3 }),
					scenarios.DeleteStep(5*time.Second, "widgets", ns, "shop"),
					// The Deployment has no labels of its own: look for it by name.
					scenarios.WaitForList(5*time.Second, "wait-shop-collected", model.ResourceDeploymentsName, ns, "",
						func(items []model.Object) bool { return !named(items, "shop") }),
					scenarios.WaitForList(5*time.Second, "wait-rs-collected", model.ResourceReplicaSetsName, ns, "app=shop",
						func(items []model.Object) bool { return len(items) == 0 }),
					scenarios.WaitForList(5*time.Second, "wait-pods-collected", model.ResourcePodsName, ns, "app=shop",
						func(items []model.Object) bool { return len(items) == 0 }),
				}
				logs = recordSteps(steps)
				return steps
			}}}
	var trace bytes.Buffer
	p, err := scenarios.PrepareSpec(spec, scenarios.Options{Scenario: spec.Name, Members: 1, Seed: 1, Trace: &trace})
	require.NoError(t, err)
	res, err := p.Run()
	require.NoError(t, err)
	require.True(t, res.OK, "%v", res.Failed())
	names := []string{"create the Widget", "create its Deployment", "its pods run", "delete the Widget",
		"the Deployment is collected", "its ReplicaSet is collected", "its pods are collected"}
	for i, l := range logs {
		require.True(t, l.ok, "%s: %v", names[i], l.errs)
	}
	// The garbage collector deleted the Deployment, following the Widget.
	var collected []string
	for _, line := range strings.Split(trace.String(), "\n") {
		if strings.Contains(line, `"controller":"garbage-collector"`) {
			collected = append(collected, line)
		}
	}
	require.NotEmpty(t, collected)
	require.Contains(t, collected[0], `"resource":"deployments","key":"default/shop"`, "the Widget's dependent first")
}

// TestStackRefusesAnInvalidCustomKind: an invalid definition in
// StackTopology.Custom fails the build, naming it and its field.
func TestStackRefusesAnInvalidCustomKind(t *testing.T) {
	bad := customWidgets
	bad.Plural = "Widgets!"
	spec := scenarios.Spec{Name: "stack-bad-kind", Duration: 60 * time.Second, Settle: 20 * time.Second,
		Stack: &scenarios.StackTopology{Nodes: 1, Custom: []model.CustomResourceDefinition{bad}}}
	_, err := scenarios.PrepareSpec(spec, scenarios.Options{Scenario: spec.Name, Members: 1, Seed: 1})
	require.ErrorContains(t, err, "Widgets!.example.com")
	require.ErrorContains(t, err, "spec.names.plural")
}
