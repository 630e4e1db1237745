package checks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLinearizabilityTestdata checks the histories in
// testdata/linearizability/*.json against their recorded verdicts. Each
// file holds {"description", "linearizable", "ops"}, ops as histOp with
// times in milliseconds (return -1: the call never returned).
func TestLinearizabilityTestdata(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "linearizability", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			var h struct {
				Description  string   `json:"description"`
				Linearizable bool     `json:"linearizable"`
				Ops          []histOp `json:"ops"`
			}
			require.NoError(t, json.Unmarshal(raw, &h))
			r := feedEvents(NewLinearizability(LinearizabilityOptions{}), historyEvents(h.Ops, time.Millisecond))
			require.Equal(t, h.Linearizable, r.OK, "%s\n%s", h.Description, r.String())
		})
	}
}
