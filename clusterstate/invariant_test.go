package clusterstate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// maxReplicas is a judge over the custom kind: no Widget ever asks for
// more than limit replicas, at any version.
func maxReplicas(limit int) clusterstate.Judge {
	return func(h *clusterstate.History, r *checks.Recorder) {
		for _, id := range h.Names("widgets", "") {
			for _, v := range h.Versions("widgets", id.Namespace, id.Name) {
				w, ok := v.Object.(*model.CustomObject)
				if !ok {
					continue
				}
				var spec widgetSpec
				if err := w.DecodeSpec(&spec); err != nil {
					r.Add(v.Event(), "Widget %s: %v", id, err)
					continue
				}
				if spec.Replicas > limit {
					r.Add(v.Event(), "Widget %s asks for %d replicas at revision %d", id, spec.Replicas, v.Rev)
				}
			}
		}
	}
}

// labelled is a judge over the final state: every Deployment and every
// Node carries label key.
func labelled(key string) clusterstate.Judge {
	return func(h *clusterstate.History, r *checks.Recorder) {
		s := h.Final()
		for _, res := range []string{model.ResourceDeploymentsName, model.ResourceNodesName} {
			for _, obj := range s.List(res, "") {
				if _, ok := obj.GetObjectMeta().Labels[key]; !ok {
					r.Add(s.Event(), "%s %s has no label %s", obj.Kind(), obj.GetObjectMeta().Name, key)
				}
			}
		}
	}
}

// mustHaveWidgets is a judge that refuses a vacuous pass: some Widget
// must have been written.
func mustHaveWidgets(h *clusterstate.History, r *checks.Recorder) {
	if len(h.Names("widgets", "")) == 0 {
		r.Add(h.Final().Event(), "no Widget was ever written")
	}
}

func TestInvariant(t *testing.T) {
	_, tr := sampleHistory(t)
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	corrupt := &tracer{t: t}
	corrupt.apply("etcd-1", 2, 2, etcdtrace.Change{Type: etcdtrace.ChangePut, Key: "/registry/example.com/widgets/prod/w9",
		Value: `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w9"},"colour":1}`, ModRev: 2, CreateRev: 2, Version: 1})
	for _, tc := range []struct {
		name     string
		events   []sim.Event
		judge    clusterstate.Judge
		wantOK   bool
		detail   string
		offenses []checks.Offense
	}{
		{name: "custom field within limit", events: tr.events, judge: maxReplicas(5), wantOK: true,
			detail: "holds up to revision 8 (6 object(s) written)"},
		{name: "custom field over limit", events: tr.events, judge: maxReplicas(4),
			detail:   "1 violation(s); first: Widget prod/w1 asks for 5 replicas at revision 7",
			offenses: []checks.Offense{{At: sec(6), Seq: 10, What: "Widget prod/w1 asks for 5 replicas at revision 7"}}},
		{name: "custom field over limit twice", events: tr.events, judge: maxReplicas(1),
			offenses: []checks.Offense{
				{At: sec(3), Seq: 6, What: "Widget prod/w1 asks for 2 replicas at revision 4"},
				{At: sec(6), Seq: 10, What: "Widget prod/w1 asks for 5 replicas at revision 7"}}},
		{name: "final labels", events: tr.events, judge: labelled("zone"), wantOK: true},
		{name: "final labels missing", events: tr.events, judge: labelled("rack"),
			offenses: []checks.Offense{{At: sec(7), Seq: 11, What: "Node node-1 has no label rack"}}},
		{name: "empty history passes a judge that records nothing", judge: maxReplicas(0), wantOK: true,
			detail: "holds up to revision 0 (0 object(s) written)"},
		{name: "a judge may refuse an empty history", judge: mustHaveWidgets,
			offenses: []checks.Offense{{At: 0, Seq: 0, What: "no Widget was ever written"}}},
		{name: "an object that does not decode fails the check where it was stored", events: corrupt.events, judge: maxReplicas(5),
			offenses: []checks.Offense{{At: sec(2), Seq: 0,
				What: "widgets prod/w9 at revision 2 does not decode: decode Widget: json: unknown field \"colour\""}}},
		{name: "an object the judge does not read is not judged", events: corrupt.events, judge: mustHaveWidgets, wantOK: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := clusterstate.Invariant("widget-limit", tc.judge)
			require.Equal(t, "widget-limit", c.Name())
			for i := range tc.events {
				c.Observe(&tc.events[i])
			}
			res := c.Finish()
			require.Equal(t, "widget-limit", res.Name)
			require.Equal(t, tc.wantOK, res.OK, res.String())
			if tc.detail != "" {
				require.Equal(t, tc.detail, res.Detail)
			}
			require.Equal(t, tc.offenses, res.Offenses)
			require.Equal(t, res, c.Finish(), "a second Finish gives the same verdict")
		})
	}
}

// TestInvariantInAScenario: an Invariant returned from a spec's Build hook
// judges a real run: on stack-chaos, a pod bound to a node stays on it at
// every later version (the binding cannot be undone), and pods were bound.
func TestInvariantInAScenario(t *testing.T) {
	spec, err := scenarios.Lookup("stack-chaos")
	require.NoError(t, err)
	var inv *clusterstate.InvariantCheck
	spec.Name = "stack-chaos-pods-stay-bound"
	spec.Build = func(*scenarios.Cluster, scenarios.Env) ([]checks.Check, error) {
		inv = clusterstate.Invariant("pods-stay-bound", podsStayBound)
		return []checks.Check{inv}, nil
	}
	p, err := scenarios.PrepareSpec(spec, scenarios.Options{Members: 3, Seed: 1})
	require.NoError(t, err)
	res, err := p.Run()
	require.NoError(t, err)
	var got *checks.Result
	for i := range res.Checks {
		if res.Checks[i].Name == "pods-stay-bound" {
			got = &res.Checks[i]
		}
	}
	require.NotNil(t, got, "the invariant ran")
	require.True(t, got.OK, got.String())
	require.NotEmpty(t, inv.History().Final().List(model.ResourcePodsName, ""))
}

// podsStayBound: once a pod (one UID) has a node, every later version of
// it has that node; and some pod was bound.
func podsStayBound(h *clusterstate.History, r *checks.Recorder) {
	bound := 0
	for _, id := range h.Names(model.ResourcePodsName, "") {
		node := map[model.UID]string{}
		for _, v := range h.Versions(model.ResourcePodsName, id.Namespace, id.Name) {
			p, ok := v.Object.(*model.Pod)
			if !ok {
				continue
			}
			was := node[p.UID]
			switch {
			case was != "" && p.Spec.NodeName != was:
				r.Add(v.Event(), "pod %s moved from %s to %q at revision %d", id, was, p.Spec.NodeName, v.Rev)
			case was == "" && p.Spec.NodeName != "":
				node[p.UID] = p.Spec.NodeName
				bound++
			}
		}
	}
	if bound == 0 {
		r.Add(h.Final().Event(), "no pod was ever bound")
	}
}
