package scenarios_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/scenarios"
)

// TestMetricRegistry: every metric that the catalogue's runs report is in
// metrics.Registry (the documentation's list), with the layer and
// scenarios it says, and every registered metric is reported by a run.
func TestMetricRegistry(t *testing.T) {
	t.Parallel() // long: runs beside the other long tests, one per core
	reported := map[string]bool{}
	runs := []string{"etcd-chaos", "api-chaos"}
	for _, spec := range scenarios.Catalogue() {
		if spec.Layer() == "stack" {
			runs = append(runs, spec.Name)
		}
	}
	for _, name := range runs {
		res, err := scenarios.Run(scenarios.Options{Scenario: name, Members: 3, Seed: 1})
		require.NoError(t, err)
		for m := range res.Metrics {
			reported[m] = true
			info, ok := lookupMetric(m)
			require.True(t, ok, "%s reports metric %q, which metrics.Registry does not list", name, m)
			if info.Scenarios != "" {
				require.Contains(t, strings.Split(info.Scenarios, ", "), name, "metric %s", m)
			}
		}
	}
	for _, m := range metrics.Registry() {
		require.True(t, reported[m.Name], "metrics.Registry lists %q, which no run reported", m.Name)
	}
}

func lookupMetric(name string) (metrics.Info, bool) {
	for _, m := range metrics.Registry() {
		if m.Name == name {
			return m, true
		}
	}
	return metrics.Info{}, false
}
