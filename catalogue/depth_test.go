package catalogue_test

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// How deep the scenario tests go. `go test ./...` runs a modest number of
// seeds per scenario, enough to reach every scenario's faults at each of its
// member counts; the deep catalogue (CI runs it too) asks for more:
//
//	go test ./catalogue -run 'TestCatalogue|TestDeterminism|TestProperty|TestMinMembers' -deep
//	go test ./catalogue -run TestCatalogue -catalogue-seeds 300 -catalogue-grid
var (
	deepFlag  = flag.Bool("deep", false, "run the deep catalogue: every scenario over its catalogue seeds (100 for etcd and API scenarios, 50 for the full stack), a tenth of them twice in TestDeterminism, and 100 rapid cases per property")
	seedsFlag = flag.Int("catalogue-seeds", 0, "seeds per scenario in TestCatalogue (default: 3, or the scenario's catalogue seeds with -deep)")
	gridFlag  = flag.Bool("catalogue-grid", false, "TestCatalogue runs every seed with every member count of the scenario, instead of rotating through them")
)

// Seeds of the default (not deep) run.
const (
	quickCatalogueSeeds = 3
	quickRapidChecks    = "10"
)

func TestMain(m *testing.M) {
	flag.Parse()
	if !*deepFlag && !flagSet("rapid.checks") {
		// rapid's default is 100 cases per property; the deep run keeps it.
		if err := flag.Set("rapid.checks", quickRapidChecks); err != nil {
			panic(err)
		}
	}
	if os.Getenv("GOGC") == "" {
		// The runs here allocate fast and keep little: collecting a third
		// as often cuts the package's CPU time by a tenth or more, for
		// about a gigabyte of heap at its peak.
		debug.SetGCPercent(300)
	}
	os.Exit(m.Run())
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// catalogueSeeds is how many seeds TestCatalogue runs spec over.
func catalogueSeeds(spec scenarios.Spec) int {
	switch {
	case *seedsFlag > 0:
		return *seedsFlag
	case *deepFlag:
		return spec.Seeds
	case testing.Short():
		return 2
	}
	return quickCatalogueSeeds
}
