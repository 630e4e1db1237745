package checks

import (
	"bytes"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/sim"
)

// timeOutOn makes a runner's porcupine give up on the keys whose first
// input key names, and judge the others for real.
func timeOutOn(r *linRunner, keyOf func(input any) string, keys ...string) {
	r.checkKey = func(m porcupine.Model, ops []porcupine.Operation, _ time.Duration) porcupine.CheckResult {
		for _, k := range keys {
			if keyOf(ops[0].Input) == k {
				return porcupine.Unknown
			}
		}
		return porcupine.CheckOperationsTimeout(m, ops, 0)
	}
}

// TestLinearizabilityTimeoutFails: a key porcupine gives up on fails the
// check as "unknown", with an offense at that key's first call, and
// leaves nothing to visualize.
func TestLinearizabilityTimeoutFails(t *testing.T) {
	c := NewLinearizability(LinearizabilityOptions{Timeout: time.Second})
	timeOutOn(c.run, func(in any) string { return in.(KVInput).Key }, "y")
	r := feedEvents(c, historyEvents([]histOp{
		put("c1", "x", "1", 0, 10, ok), put("c2", "y", "1", 5, 20, ok), get("c1", "y", 30, 40, true, "1"),
	}, time.Millisecond))
	require.False(t, r.OK)
	require.Equal(t, `linearizability unknown: porcupine timed out after 1s on 1 key groups ("y"); `+
		"3 ops on 2 key groups (1 reads, 2 writes of which 0 with unknown outcome; dropped 0 unanswered reads, 0 failed writes)", r.Detail)
	require.Equal(t, []Offense{{At: sim.Time(5 * time.Millisecond), Seq: 1, What: `linearizability: key group "y": porcupine timed out after 1s on its 2 ops`}}, r.Offenses)
	require.ErrorIs(t, c.WriteVisualization(&bytes.Buffer{}), ErrNoVisualization)
}

// TestAPILinearizabilityTimeoutFails: the same for API objects.
func TestAPILinearizabilityTimeoutFails(t *testing.T) {
	c := NewAPILinearizability(APILinearizabilityOptions{Timeout: time.Second})
	timeOutOn(c.run, func(in any) string { return apiPartitionKey(in.(APIInput)) }, "pods/default/b")
	r := feedEvents(c, apiEvents("pods", []apiOpSpec{
		{client: "c1", verb: "create", key: k1, value: "a", call: 0, ret: 10, code: 201, gotRV: "5"},
		{client: "c2", verb: "create", key: "default/b", value: "b", call: 5, ret: 20, code: 201, gotRV: "6"},
	}))
	require.False(t, r.OK)
	require.Contains(t, r.Detail, `api-linearizability unknown: porcupine timed out after 1s on 1 objects ("pods/default/b"); 2 ops on 2 objects`)
	require.Equal(t, []Offense{{At: sim.Time(5 * time.Millisecond), Seq: 1, What: `api-linearizability: object "pods/default/b": porcupine timed out after 1s on its 1 ops`}}, r.Offenses)
	require.ErrorIs(t, c.WriteVisualization(&bytes.Buffer{}), ErrNoVisualization)
}

// TestLinearizabilityIllegalAlwaysHasOffense: when porcupine's explanation
// finds no operation outside the longest linearization (here: a check
// that calls a valid history illegal), the failure still carries an
// offense naming the key, and the visualization is written.
func TestLinearizabilityIllegalAlwaysHasOffense(t *testing.T) {
	c := NewLinearizability(LinearizabilityOptions{})
	c.run.checkKey = func(porcupine.Model, []porcupine.Operation, time.Duration) porcupine.CheckResult {
		return porcupine.Illegal
	}
	r := feedEvents(c, historyEvents([]histOp{put("c1", "x", "1", 0, 10, ok), get("c2", "x", 20, 30, true, "1")}, time.Millisecond))
	require.False(t, r.OK)
	require.Equal(t, []Offense{{What: `linearizability: key group "x" has no linearization`}}, r.Offenses)
	require.Equal(t, `not linearizable on 1 of 1 key groups ("x"); first: linearizability: key group "x" has no linearization`, r.Detail)
	var buf bytes.Buffer
	require.NoError(t, c.WriteVisualization(&buf))
	require.Contains(t, buf.String(), "<html")
}
