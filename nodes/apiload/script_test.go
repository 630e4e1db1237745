package apiload

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/client"
	"github.com/kubesim/kubesim/nodes/internal/apitest"
	"github.com/kubesim/kubesim/sim"
)

// TestScriptRunsStepsInOrderThroughAnOutage: a step that fails while the
// only API server is down is retried until it succeeds, and the next
// step waits for it.
func TestScriptRunsStepsInOrderThroughAnOutage(t *testing.T) {
	c := apitest.New(3, 3, 1, nil)
	var doneAt []sim.Time
	create := func(name string) Step {
		return Step{At: 10 * time.Second, Name: "create-" + name, Do: func(cl *client.Client, done func(error)) {
			cl.Leases("default").Create(newLease("default", name, "v"), func(_ model.Object, err error) {
				if err == nil || client.IsAlreadyExists(err) {
					doneAt = append(doneAt, cl.Host().Now())
					err = nil
				}
				done(err)
			})
		}}
	}
	c.AddHost("operator", BootScript(ScriptConfig{Servers: c.Servers, Steps: []Step{create("a"), create("b")}}))
	api := c.Host("apiserver-1")
	c.W.At(sim.Time(9*time.Second), "down", api.Crash)
	c.W.At(sim.Time(30*time.Second), "up", api.Restart)
	c.Run(60 * time.Second)
	require.Len(t, doneAt, 2)
	require.GreaterOrEqual(t, doneAt[0], sim.Time(30*time.Second), "the first step succeeded while the API server was down")
	require.GreaterOrEqual(t, doneAt[1], doneAt[0])
	_, err := c.Get(model.ResourceLeasesName, "default", "b")
	require.NoError(t, err)
}
