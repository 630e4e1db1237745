package docgen_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/internal/docgen"
)

// TestDocsUpToDate fails when a generated page of docs/ no longer says
// what the code says: a scenario, check or ablation was added or changed
// without `go generate ./...`.
func TestDocsUpToDate(t *testing.T) {
	for _, p := range docgen.Pages() {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", p.Name))
		require.NoError(t, err, "docs/%s is missing: run go generate ./...", p.Name)
		require.Equal(t, p.Body, string(got), "docs/%s drifted from the code: run go generate ./...", p.Name)
	}
}
