package deployment

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStopEndsTheController: after Stop a template change makes no new
// ReplicaSet.
func TestStopEndsTheController(t *testing.T) {
	e := newEnv(t, 9)
	e.create(newDeployment("web", 2, "web:1"))
	e.rollOut("web", "web:1")
	e.Host("kcm").Exposed("controller").(*Controller).Stop()
	e.setImage("web", "web:2")
	e.Run(20 * time.Second)
	require.Nil(t, e.rsOfImage("web:2"))
}

// TestDeterministic runs the same rollout twice: identical traces.
func TestDeterministic(t *testing.T) {
	run := func() uint64 {
		e := newEnv(t, 10)
		e.create(newDeployment("web", 4, "web:1"))
		e.rollOut("web", "web:1")
		e.setImage("web", "web:2")
		e.rollOut("web", "web:2")
		return e.W.Trace().Hash()
	}
	require.Equal(t, run(), run())
}
