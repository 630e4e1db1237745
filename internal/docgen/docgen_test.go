package docgen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/checks"
	"github.com/kubesim/kubesim/internal/docgen"
	"github.com/kubesim/kubesim/scenarios"
)

// TestDocsUpToDate fails when a generated page of docs/ no longer says
// what the code says: a scenario, check, ablation or fidelity entry was
// added or changed without `go generate ./...`.
func TestDocsUpToDate(t *testing.T) {
	for _, p := range docgen.Pages() {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", p.Name))
		require.NoError(t, err, "docs/%s is missing: run go generate ./...", p.Name)
		require.Equal(t, p.Body, string(got), "docs/%s drifted from the code: run go generate ./...", p.Name)
	}
}

// TestReadmeCounts: the front page's counts of scenarios and checks are
// the catalogue's and the registry's.
func TestReadmeCounts(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(readme), fmt.Sprintf("**%d scenarios**", len(scenarios.Catalogue())))
	require.Contains(t, string(readme), fmt.Sprintf("**%d checks**", len(checks.Registry())))
}
