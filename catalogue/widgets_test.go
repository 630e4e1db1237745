package catalogue_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/catalogue"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/scenarios"
)

// TestWidgetValidation: the catalogue's custom kind refuses a negative
// size and a spec that is not an object, and takes no spec or a size.
func TestWidgetValidation(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		bad        string // the invalid field, or "" for valid
	}{
		{"no spec", "", ""},
		{"a size", `{"size":3}`, ""},
		{"size 0", `{"size":0}`, ""},
		{"a negative size", `{"size":-1}`, "spec.size"},
		{"not an object", `[1]`, "spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := model.NewCustomObject(catalogue.Widgets, "default", "w")
			if tc.spec != "" {
				w.Spec = model.RawJSON(tc.spec)
			}
			errs := catalogue.Widgets.Validate(w, nil)
			if tc.bad == "" {
				require.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			require.Equal(t, tc.bad, errs[0].Field)
		})
	}
}

// runTraced runs scenario at seed 1 with 3 members and returns its result
// and JSON trace.
func runTraced(t *testing.T, scenario string) (scenarios.Result, string) {
	var trace bytes.Buffer
	p, err := scenarios.Prepare(scenarios.Options{Scenario: scenario, Members: 3, Seed: 1, Trace: &trace})
	require.NoError(t, err)
	res, err := p.Run()
	require.NoError(t, err)
	require.True(t, res.OK, "%v", res.Failed())
	return res, trace.String()
}

// count counts the trace lines that hold every one of parts.
func count(trace string, parts ...string) int {
	n := 0
	for _, line := range strings.Split(trace, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
		}
	}
	return n
}

// TestChaosServesWidgets: the chaos scenarios reach the custom-resource
// path under their faults, and their checks judge it. In api-chaos,
// Widgets' own CRUD clients create, update and delete them beside the
// Lease workload (api-linearizability judges their calls) and the
// informers watch them (informer-replay replays them). In stack-chaos the
// operator creates and resizes a Widget, the controller manager watches
// Widgets, and once the Widget is deleted the garbage collector deletes
// the Deployment it controlled (ownership judges the deletion; access, who
// wrote the Widget).
func TestChaosServesWidgets(t *testing.T) {
	t.Parallel()
	res, trace := runTraced(t, "api-chaos")
	for _, verb := range []string{"create", "update", "delete"} {
		require.NotZero(t, count(trace, `"type":"api.call"`, `"client":"crud-widgets-`, `"verb":"`+verb+`"`, `"resource":"widgets"`), "api-chaos: no %s of a Widget", verb)
	}
	require.NotZero(t, count(trace, `"type":"informer.event"`, `"resource":"widgets"`), "api-chaos: no informer saw a Widget")
	require.NotZero(t, count(trace, `"type":"api.call"`, `"resource":"leases"`, `"key":"default/counter"`), "api-chaos: the counter stays a Lease")
	requireRan(t, res, "api-linearizability", "informer-replay", "access")

	res, trace = runTraced(t, "stack-chaos")
	for _, verb := range []string{"create", "update", "delete"} {
		require.NotZero(t, count(trace, `"type":"api.admit"`, `"user":"admin"`, `"verb":"`+verb+`"`, `"resource":"widgets"`), "stack-chaos: no admitted %s of a Widget", verb)
	}
	require.NotZero(t, count(trace, `"type":"informer.event"`, `"informer":"controller-manager-`, `"resource":"widgets"`), "stack-chaos: the controller manager never saw the Widget")
	require.NotZero(t, count(trace, `"type":"controller.delete"`, `"controller":"garbage-collector"`, `"resource":"deployments"`, `"key":"default/shop"`),
		"stack-chaos: the garbage collector did not collect the Widget's Deployment")
	requireRan(t, res, "ownership", "access")
}

// requireRan asserts that the named checks judged the run.
func requireRan(t *testing.T, res scenarios.Result, names ...string) {
	t.Helper()
	ran := map[string]bool{}
	for _, c := range res.Checks {
		ran[c.Name] = true
	}
	for _, n := range names {
		require.True(t, ran[n], "%s ran", n)
	}
}
