package simtest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/clusterstate"
	"github.com/kubesim/kubesim/model"
)

// TestEveryCustomObjectRefusesNone: a run that never wrote an object of
// the kind fails the check, without asking the judge.
func TestEveryCustomObjectRefusesNone(t *testing.T) {
	def := model.CustomResourceDefinition{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets"}
	judged := 0
	c := EveryCustomObject("widgets-ok", def, "default", func(clusterstate.Snapshot, *model.CustomObject) string {
		judged++
		return ""
	})
	res := c.Finish()
	require.False(t, res.OK)
	require.Equal(t, "widgets-ok", res.Name)
	require.Len(t, res.Offenses, 1)
	require.Equal(t, "no Widget to judge", res.Offenses[0].What)
	require.Zero(t, judged)
}
