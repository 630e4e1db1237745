package checks

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/trace/spoketrace"
)

func TestMeasuresOf(t *testing.T) {
	probes := NewProbeRestarts()
	evictions := NewEvictionTiming(EvictionTimingOptions{})
	cs := []Check{NewBoundOnce(), probes, evictions}
	feedSpoke(probes, stop(1, "node-1", "a", spoketrace.StopLiveness, false))
	feedSpoke(evictions)
	require.Equal(t, map[string]float64{
		"probe_restarts": 1, "healthy_restarts": 0, "rotation_exits": 0, // probe-restarts
		"eviction_delay_s": -1, "eviction_delay_max_s": -1, "evictions": 0, "eviction_after_taint_s": -1, // eviction-timing: nothing measured
	}, MeasuresOf(cs...), "the measurers' values merged; a check that does not measure adds nothing")
	require.Empty(t, MeasuresOf(NewBoundOnce()))
}
